# labels: name::longformer author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""Longformer (transformers LongformerModel), longformer-base-4096's literal config, random weights; seq 512, one attention window (the sliding-window attention needs a multiple of 512; shorter inputs are padded to it inside)."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.LongformerModel(transformers.LongformerConfig(
        vocab_size=50265, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
        intermediate_size=3072, hidden_act="gelu", max_position_embeddings=4098, type_vocab_size=1,
        attention_window=512, layer_norm_eps=1e-5, pad_token_id=1, bos_token_id=0, eos_token_id=2,
        sep_token_id=2))


torch_model(__file__, build, text(vocab=50265, seq=512))
