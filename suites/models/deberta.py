# labels: name::deberta author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""DeBERTa (transformers DebertaModel), deberta-base's literal config, random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.DebertaModel(transformers.DebertaConfig(
        vocab_size=50265, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
        intermediate_size=3072, hidden_act="gelu", max_position_embeddings=512, type_vocab_size=0,
        relative_attention=True, max_relative_positions=-1, pos_att_type=["c2p", "p2c"],
        position_biased_input=False, layer_norm_eps=1e-7, pad_token_id=0))


torch_model(__file__, build, text(vocab=50265))
