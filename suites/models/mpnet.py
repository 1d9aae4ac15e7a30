# labels: name::mpnet author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""MPNet (transformers MPNetModel), mpnet-base's literal config, random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.MPNetModel(transformers.MPNetConfig(
        vocab_size=30527, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
        intermediate_size=3072, hidden_act="gelu", max_position_embeddings=514,
        relative_attention_num_buckets=32, layer_norm_eps=1e-5, pad_token_id=1, bos_token_id=0, eos_token_id=2))


torch_model(__file__, build, text(vocab=30527))
