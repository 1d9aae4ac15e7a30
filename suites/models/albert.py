# labels: name::albert author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder set::core
"""ALBERT (transformers AlbertModel), albert-base-v2's literal config, random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.AlbertModel(transformers.AlbertConfig(
        vocab_size=30000, embedding_size=128, hidden_size=768, num_hidden_layers=12, num_hidden_groups=1,
        num_attention_heads=12, intermediate_size=3072, inner_group_num=1, hidden_act="gelu_new",
        max_position_embeddings=512, type_vocab_size=2, layer_norm_eps=1e-12,
        pad_token_id=0, bos_token_id=2, eos_token_id=3))


torch_model(__file__, build, text(vocab=30000))
