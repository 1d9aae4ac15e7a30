# labels: name::esm author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder set::core
"""ESM-2 protein language model (transformers EsmModel), esm2_t12_35M_UR50D's literal config (rotary positions, token dropout), random weights; inputs are the 20 standard amino-acid tokens (ids 4-23)."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, batch_size, ids, seq_length, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, batch_size, ids, seq_length, torch_model


def build():
    import transformers

    return transformers.EsmModel(transformers.EsmConfig(
        vocab_size=33, hidden_size=480, num_hidden_layers=12, num_attention_heads=20, intermediate_size=1920,
        hidden_act="gelu", max_position_embeddings=1026, position_embedding_type="rotary", token_dropout=True,
        emb_layer_norm_before=False, layer_norm_eps=1e-5, mask_token_id=32, pad_token_id=1, is_folding_model=False))


B, S = batch_size(), seq_length()
torch_model(__file__, build, Inputs(f"b{B}-s{S}", (B, S), lambda t: (ids(t, 20, (B, S)) + 4,), B))
