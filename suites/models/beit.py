# labels: name::beit author::huggingface task::Computer_Vision framework::torch family::transformers-vision
"""BEiT (transformers BeitModel), microsoft/beit-base-patch16-224's literal config (per-layer relative position bias, layer scale, mean pooling), random weights; judges last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import transformers

    return transformers.BeitModel(transformers.BeitConfig(
        vocab_size=8192, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
        image_size=224, patch_size=16, use_relative_position_bias=True, use_shared_relative_position_bias=False,
        use_absolute_position_embeddings=False, layer_scale_init_value=0.1, use_mean_pooling=True))


torch_model(__file__, build, image())
