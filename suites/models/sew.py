# labels: name::sew author::huggingface task::Audio framework::torch family::transformers-audio
"""SEW (transformers SEWModel), SEWConfig's literal default (the asapp/sew-tiny-100k architecture: 13-layer conv extractor, squeeze factor 2, hidden 768, 12 layers), random weights; one second of raw 16 kHz waveform (b, 16000); judges last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import batch_size, tensor, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import batch_size, tensor, torch_model


def build():
    import transformers

    return transformers.SEWModel(transformers.SEWConfig(
        hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072, squeeze_factor=2,
        feat_extract_norm="group", conv_dim=[64, 128, 128, 128, 128, 256, 256, 256, 256, 512, 512, 512, 512],
        conv_stride=[5, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1], conv_kernel=[10, 3, 1, 3, 1, 3, 1, 3, 1, 2, 1, 2, 1],
        conv_bias=False, num_conv_pos_embeddings=128, num_conv_pos_embedding_groups=16))


B = batch_size()
torch_model(__file__, build, tensor(f"b{B}-t16000", (B, 16000), B))
