# labels: name::unet-2d-condition author::diffusers task::Generative_AI framework::torch family::diffusers-unet set::core
"""UNet2DConditionModel (diffusers), a small literal Stable-Diffusion-1.x-like config (SD's block layout and
cross_attention_dim 768, but block channels 64-128-256-256), random weights; 32x32 latents, 77 text states."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, ids, torch_model

CROSS = 768


def build():
    import diffusers

    return diffusers.UNet2DConditionModel(
        sample_size=32, in_channels=4, out_channels=4, layers_per_block=2,
        block_out_channels=(64, 128, 256, 256),
        down_block_types=("CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"),
        cross_attention_dim=CROSS, attention_head_dim=8, norm_num_groups=32)


SAMPLE = (1, 4, 32, 32)
torch_model(__file__, build,
            Inputs("b1-32x32-t77", SAMPLE,
                   lambda t: (floats(t, SAMPLE), ids(t, 1000, (1,)), floats(t, (1, 77, CROSS))), 1))
