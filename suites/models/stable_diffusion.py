# labels: name::stable-diffusion author::diffusers task::Generative_AI framework::torch family::diffusers-pipeline corpus::hand-written size::tiny license::Apache-2.0
"""Stable Diffusion as one pipeline case: CLIP text encoder (transformers CLIPTextModel), UNet2DConditionModel and
AutoencoderKL's decoder (diffusers), each a small literal config of SD 1.x's layout, random weights, assembled as
StableDiffusionPipeline assembles them: token ids -> text states -> two classifier-free-guided denoising steps of
the UNet on the latents (DDIM's update with fixed alphas, no scheduler state) -> the VAE decodes the image. Judges
the decoded image. Runs alone: `python suites/models/stable_diffusion.py` (torch, transformers and diffusers)."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one pipeline pass
    from _standalone import Inputs, floats, ids, torch_model

CROSS, TOKENS, VOCAB = 256, 77, 1000
LATENT = 8  # latents 8x8: a 64x64 image
STEPS = ((999, 0.0047), (499, 0.2779))  # (timestep, alpha-bar) of two DDIM steps
GUIDANCE = 7.5


def build():
    import diffusers
    import torch
    import transformers

    class StableDiffusion(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.text = transformers.CLIPTextModel(transformers.CLIPTextConfig(
                vocab_size=VOCAB, hidden_size=CROSS, intermediate_size=4 * CROSS, num_hidden_layers=4,
                num_attention_heads=4, max_position_embeddings=TOKENS, bos_token_id=0, eos_token_id=2))
            self.unet = diffusers.UNet2DConditionModel(
                sample_size=LATENT, in_channels=4, out_channels=4, layers_per_block=1,
                block_out_channels=(32, 64, 64, 64),
                down_block_types=("CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"),
                up_block_types=("UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"),
                cross_attention_dim=CROSS, attention_head_dim=8, norm_num_groups=32)
            self.vae = diffusers.AutoencoderKL(
                in_channels=3, out_channels=3, latent_channels=4, block_out_channels=(32, 32, 64, 64),
                down_block_types=("DownEncoderBlock2D",) * 4, up_block_types=("UpDecoderBlock2D",) * 4,
                layers_per_block=1, norm_num_groups=32, sample_size=8 * LATENT)

        def forward(self, ids, empty, latents):
            states = torch.cat([self.text(empty)[0], self.text(ids)[0]])  # unconditional, conditional
            for i, (step, abar) in enumerate(STEPS):
                t = torch.full((2,), step, dtype=torch.int64, device=latents.device)
                noise = self.unet(torch.cat([latents, latents]), t, encoder_hidden_states=states).sample
                uncond, cond = noise.chunk(2)
                eps = uncond + GUIDANCE * (cond - uncond)
                x0 = (latents - (1 - abar) ** 0.5 * eps) / abar ** 0.5
                nxt = STEPS[i + 1][1] if i + 1 < len(STEPS) else 1.0
                latents = nxt ** 0.5 * x0 + (1 - nxt) ** 0.5 * eps
            return self.vae.decode(latents / 0.18215).sample

    return StableDiffusion()


torch_model(__file__, build, Inputs(
    f"b1-{LATENT}x{LATENT}-t{TOKENS}", (1, 4, LATENT, LATENT),
    lambda t: (ids(t, VOCAB, (1, TOKENS)), ids(t, 1, (1, TOKENS)), floats(t, (1, 4, LATENT, LATENT))), 1),
    stages=("eager", "compiled", "onnxruntime"))
