# labels: name::mobilebert author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""MobileBERT (transformers MobileBertModel), mobilebert-uncased's literal config, random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.MobileBertModel(transformers.MobileBertConfig(
        vocab_size=30522, hidden_size=512, embedding_size=128, num_hidden_layers=24, num_attention_heads=4,
        intermediate_size=512, hidden_act="relu", max_position_embeddings=512, type_vocab_size=2,
        trigram_input=True, use_bottleneck=True, intra_bottleneck_size=128, true_hidden_size=128,
        use_bottleneck_attention=False, key_query_shared_bottleneck=True, num_feedforward_networks=4,
        normalization_type="no_norm", layer_norm_eps=1e-12, pad_token_id=0))


torch_model(__file__, build, text(vocab=30522))
