# labels: name::swin author::huggingface task::Computer_Vision framework::torch family::transformers-vision set::core
"""Swin Transformer (transformers SwinModel), microsoft/swin-tiny-patch4-window7-224's literal config, random weights; judges last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import transformers

    return transformers.SwinModel(transformers.SwinConfig(
        image_size=224, patch_size=4, embed_dim=96, depths=[2, 2, 6, 2], num_heads=[3, 6, 12, 24],
        window_size=7, mlp_ratio=4.0, drop_path_rate=0.1))


torch_model(__file__, build, image())
