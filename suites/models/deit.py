# labels: name::deit author::huggingface task::Computer_Vision framework::torch family::transformers-vision
"""DeiT (transformers DeiTModel, with its distillation token), facebook/deit-base-distilled-patch16-224's literal config, random weights; judges last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import transformers

    return transformers.DeiTModel(transformers.DeiTConfig(
        hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
        image_size=224, patch_size=16, qkv_bias=True, layer_norm_eps=1e-12))


torch_model(__file__, build, image())
