# labels: name::dit author::diffusers task::Generative_AI framework::torch family::diffusers-transformer
"""DiTTransformer2DModel (diffusers), DiT-S/2's literal config (hidden 384, 12 layers, 6 heads, patch 2,
1000 classes) on 32x32x4 latents, random weights; class-conditioned."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, ids, torch_model


def build():
    import diffusers

    return diffusers.DiTTransformer2DModel(
        num_attention_heads=6, attention_head_dim=64, in_channels=4, out_channels=8, num_layers=12,
        sample_size=32, patch_size=2, num_embeds_ada_norm=1000, norm_type="ada_norm_zero")


SAMPLE = (1, 4, 32, 32)
torch_model(__file__, build,
            Inputs("b1-32x32", SAMPLE, lambda t: (floats(t, SAMPLE), ids(t, 1000, (1,)), ids(t, 1000, (1,))), 1),
            forward=lambda m, x, step, label: m(x, timestep=step, class_labels=label))
