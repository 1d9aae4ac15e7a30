# labels: name::focalnet author::huggingface task::Computer_Vision framework::torch family::transformers-vision
"""FocalNet (transformers FocalNetModel), microsoft/focalnet-tiny's literal config, random weights; judges last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import transformers

    return transformers.FocalNetModel(transformers.FocalNetConfig(
        image_size=224, patch_size=4, embed_dim=96, depths=[2, 2, 6, 2], focal_levels=[2, 2, 2, 2],
        focal_windows=[3, 3, 3, 3], mlp_ratio=4.0, drop_path_rate=0.1))


torch_model(__file__, build, image())
