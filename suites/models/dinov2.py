# labels: name::dinov2 author::huggingface task::Computer_Vision framework::torch family::transformers-vision
"""DINOv2 (transformers Dinov2Model), facebook/dinov2-base's literal config (patch 14, 518-pixel position table, interpolated to the 224x224 input), random weights; judges last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import transformers

    return transformers.Dinov2Model(transformers.Dinov2Config(
        hidden_size=768, num_hidden_layers=12, num_attention_heads=12, mlp_ratio=4, image_size=518,
        patch_size=14, layerscale_value=1.0, layer_norm_eps=1e-6, use_swiglu_ffn=False))


torch_model(__file__, build, image())
