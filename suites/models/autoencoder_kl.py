# labels: name::autoencoder-kl author::diffusers task::Generative_AI framework::torch family::diffusers-vae set::core
"""AutoencoderKL (diffusers), Stable Diffusion's VAE layout (4 levels, 4 latent channels) with a small literal
config (block channels 32-64-128-128), random weights; judges the decoded sample (posterior mode, no sampling)."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import diffusers

    return diffusers.AutoencoderKL(
        in_channels=3, out_channels=3, latent_channels=4, layers_per_block=2,
        block_out_channels=(32, 64, 128, 128),
        down_block_types=("DownEncoderBlock2D",) * 4, up_block_types=("UpDecoderBlock2D",) * 4,
        norm_num_groups=32, sample_size=128)


torch_model(__file__, build, image(size=(128, 128)), pick=lambda out: (out.sample,))
