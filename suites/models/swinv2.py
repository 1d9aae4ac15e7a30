# labels: name::swinv2 author::huggingface task::Computer_Vision framework::torch family::transformers-vision
"""Swin Transformer V2 (transformers Swinv2Model), microsoft/swinv2-tiny-patch4-window8-256's literal config (so 256x256 inputs), random weights; judges last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import transformers

    return transformers.Swinv2Model(transformers.Swinv2Config(
        image_size=256, patch_size=4, embed_dim=96, depths=[2, 2, 6, 2], num_heads=[3, 6, 12, 24],
        window_size=8, mlp_ratio=4.0, drop_path_rate=0.1))


torch_model(__file__, build, image(size=(256, 256)))
