# labels: name::rembert author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""RemBERT (transformers RemBertModel), google/rembert's literal config, random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.RemBertModel(transformers.RemBertConfig(
        vocab_size=250300, hidden_size=1152, num_hidden_layers=32, num_attention_heads=18,
        input_embedding_size=256, output_embedding_size=1664, intermediate_size=4608, hidden_act="gelu",
        max_position_embeddings=512, type_vocab_size=2, layer_norm_eps=1e-12,
        pad_token_id=0, bos_token_id=312, eos_token_id=313))


torch_model(__file__, build, text(vocab=250300))
