# labels: name::deberta-v2 author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder set::core
"""DeBERTa-v2 (transformers DebertaV2Model), deberta-v3-base's literal config (the DeBERTa-v2 architecture's base size), random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.DebertaV2Model(transformers.DebertaV2Config(
        vocab_size=128100, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
        intermediate_size=3072, hidden_act="gelu", max_position_embeddings=512, type_vocab_size=0,
        relative_attention=True, position_buckets=256, norm_rel_ebd="layer_norm", share_att_key=True,
        pos_att_type=["p2c", "c2p"], position_biased_input=False, max_relative_positions=-1,
        layer_norm_eps=1e-7, pad_token_id=0))


torch_model(__file__, build, text(vocab=128100))
