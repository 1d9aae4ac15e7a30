# labels: name::layoutlm author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""LayoutLM (transformers LayoutLMModel), layoutlm-base-uncased's literal config, random weights; inputs are token ids and one valid box per token (x0 <= x1, y0 <= y1, all in [0, 1000])."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, batch_size, ids, seq_length, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, batch_size, ids, seq_length, torch_model

VOCAB = 30522


def boxes(t, b, s):
    """(b, s, 4) boxes: corners in [0, 500) plus sizes in [0, 500)."""
    import torch

    corner, size = ids(t, 500, (b, s, 2)), ids(t, 500, (b, s, 2))
    return torch.cat([corner, corner + size], dim=-1)


def build():
    import transformers

    return transformers.LayoutLMModel(transformers.LayoutLMConfig(
        vocab_size=VOCAB, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
        intermediate_size=3072, hidden_act="gelu", max_position_embeddings=512, type_vocab_size=2,
        max_2d_position_embeddings=1024, layer_norm_eps=1e-12, pad_token_id=0))


B, S = batch_size(), seq_length()
torch_model(__file__, build, Inputs(f"b{B}-s{S}", (B, S), lambda t: (ids(t, VOCAB, (B, S)), boxes(t, B, S)), B),
            forward=lambda m, input_ids, bbox: m(input_ids=input_ids, bbox=bbox))
