# labels: name::vq-model author::diffusers task::Generative_AI framework::torch family::diffusers-vae
"""VQModel (diffusers), a small literal VQ-GAN config (3 levels, block channels 64-128-256, 3 latent channels,
256-entry codebook), random weights; judges the decoded sample (encode, quantize, decode)."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import diffusers

    return diffusers.VQModel(
        in_channels=3, out_channels=3, latent_channels=3, num_vq_embeddings=256, vq_embed_dim=3,
        layers_per_block=1, block_out_channels=(64, 128, 256),
        down_block_types=("DownEncoderBlock2D",) * 3, up_block_types=("UpDecoderBlock2D",) * 3,
        norm_num_groups=32, sample_size=128)


torch_model(__file__, build, image(size=(128, 128)), pick=lambda out: (out.sample,))
