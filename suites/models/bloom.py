# labels: name::bloom author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder
"""BLOOM (transformers BloomForCausalLM, logits), a small literal config (bloom-560m's width and heads with 8 of its 24 layers and a 32000-token vocabulary instead of 250880; ALiBi attention, embedding LayerNorm), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.BloomForCausalLM(transformers.BloomConfig(
        vocab_size=32000, hidden_size=1024, n_layer=8, n_head=16, layer_norm_epsilon=1e-5,
        apply_residual_connection_post_layernorm=False, use_cache=False))


torch_model(__file__, build, text(vocab=32000))
