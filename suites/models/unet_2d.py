# labels: name::unet-2d author::diffusers task::Generative_AI framework::torch family::diffusers-unet
"""UNet2DModel (diffusers), a small literal DDPM-style config (64x64 RGB, block channels 32-64-128-128,
attention at 16x16), random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, ids, torch_model


def build():
    import diffusers

    return diffusers.UNet2DModel(
        sample_size=64, in_channels=3, out_channels=3, layers_per_block=2,
        block_out_channels=(32, 64, 128, 128),
        down_block_types=("DownBlock2D", "DownBlock2D", "AttnDownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "AttnUpBlock2D", "UpBlock2D", "UpBlock2D"),
        attention_head_dim=8, norm_num_groups=32)


SAMPLE = (1, 3, 64, 64)
torch_model(__file__, build, Inputs("b1-64x64", SAMPLE, lambda t: (floats(t, SAMPLE), ids(t, 1000, (1,))), 1))
