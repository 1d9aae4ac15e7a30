# labels: name::unet-1d author::diffusers task::Generative_AI framework::torch family::diffusers-unet
"""UNet1DModel (diffusers), its default Dance-Diffusion-style literal config (stereo audio, Fourier time
embedding of 16, block channels 32-32-64), random weights; 4096 samples. Its timestep is a float noise
level (standard normal), as Dance Diffusion feeds its Fourier embedding, not an integer step."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, floats, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, torch_model


def build():
    import diffusers

    return diffusers.UNet1DModel(
        sample_size=4096, in_channels=2, out_channels=2, extra_in_channels=16, time_embedding_type="fourier",
        time_embedding_dim=16, flip_sin_to_cos=True, use_timestep_embedding=False,
        down_block_types=("DownBlock1DNoSkip", "DownBlock1D", "AttnDownBlock1D"),
        up_block_types=("AttnUpBlock1D", "UpBlock1D", "UpBlock1DNoSkip"),
        mid_block_type="UNetMidBlock1D", block_out_channels=(32, 32, 64))


SAMPLE = (1, 2, 4096)
torch_model(__file__, build, Inputs("b1-2x4096", SAMPLE, lambda t: (floats(t, SAMPLE), floats(t, (1,))), 1))
