# labels: name::hubert author::huggingface task::Audio framework::torch family::transformers-audio
"""HuBERT (transformers HubertModel), facebook/hubert-base-ls960's literal config, random weights; one second of raw 16 kHz waveform (b, 16000); judges last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import batch_size, tensor, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import batch_size, tensor, torch_model


def build():
    import transformers

    return transformers.HubertModel(transformers.HubertConfig(
        hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
        feat_extract_norm="group", conv_dim=[512] * 7, conv_stride=[5, 2, 2, 2, 2, 2, 2],
        conv_kernel=[10, 3, 3, 3, 3, 2, 2], conv_bias=False, num_conv_pos_embeddings=128,
        num_conv_pos_embedding_groups=16, do_stable_layer_norm=False, feat_proj_layer_norm=True))


B = batch_size()
torch_model(__file__, build, tensor(f"b{B}-t16000", (B, 16000), B))
