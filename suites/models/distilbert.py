# labels: name::distilbert author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder set::core
"""DistilBERT (transformers DistilBertModel), distilbert-base-uncased's literal config, random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.DistilBertModel(transformers.DistilBertConfig(
        vocab_size=30522, dim=768, n_layers=6, n_heads=12, hidden_dim=3072,
        max_position_embeddings=512, activation="gelu", sinusoidal_pos_embds=False, pad_token_id=0))


torch_model(__file__, build, text(vocab=30522))
