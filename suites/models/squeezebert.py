# labels: name::squeezebert author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""SqueezeBERT (transformers SqueezeBertModel), squeezebert-uncased's literal config, random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.SqueezeBertModel(transformers.SqueezeBertConfig(
        vocab_size=30528, hidden_size=768, embedding_size=768, num_hidden_layers=12, num_attention_heads=12,
        intermediate_size=3072, hidden_act="gelu", max_position_embeddings=512, type_vocab_size=2,
        q_groups=4, k_groups=4, v_groups=4, post_attention_groups=1, intermediate_groups=4, output_groups=4,
        layer_norm_eps=1e-12, pad_token_id=0))


torch_model(__file__, build, text(vocab=30528))
