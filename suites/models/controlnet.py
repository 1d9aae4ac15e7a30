# labels: name::controlnet author::diffusers task::Generative_AI framework::torch family::diffusers-unet
"""ControlNetModel (diffusers), a small literal SD-1.x-like config (block channels 64-128-256-256,
cross_attention_dim 768), random weights -- its zero-initialized convolutions re-drawn so the residuals are
not all zero; 32x32 latents, 77 text states, a 256x256 control image; judges the mid-block residual, then
the down-block residuals."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, ids, torch_model

CROSS = 768


def build():
    import diffusers
    import torch

    m = diffusers.ControlNetModel(
        in_channels=4, layers_per_block=2, block_out_channels=(64, 128, 256, 256),
        down_block_types=("CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"),
        cross_attention_dim=CROSS, attention_head_dim=8, norm_num_groups=32,
        conditioning_embedding_out_channels=(16, 32, 96, 256))
    zeroed = [m.controlnet_cond_embedding.conv_out, m.controlnet_mid_block, *m.controlnet_down_blocks]
    for conv in zeroed:
        torch.nn.init.normal_(conv.weight, std=0.02)
        torch.nn.init.normal_(conv.bias, std=0.02)
    return m


SAMPLE = (1, 4, 32, 32)
torch_model(__file__, build,
            Inputs("b1-32x32-t77", SAMPLE,
                   lambda t: (floats(t, SAMPLE), ids(t, 1000, (1,)), floats(t, (1, 77, CROSS)),
                              floats(t, (1, 3, 256, 256))), 1),
            forward=lambda m, x, step, text, cond: m(x, step, encoder_hidden_states=text, controlnet_cond=cond,
                                                     return_dict=False),
            pick=lambda out: (out[1], *out[0]))
