# labels: name::megatron-bert author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""Megatron-BERT (transformers MegatronBertModel), megatron-bert-cased-345m's literal config (the one official size), random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.MegatronBertModel(transformers.MegatronBertConfig(
        vocab_size=29056, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
        intermediate_size=4096, hidden_act="gelu", max_position_embeddings=512, type_vocab_size=2,
        layer_norm_eps=1e-12, pad_token_id=0))


torch_model(__file__, build, text(vocab=29056))
