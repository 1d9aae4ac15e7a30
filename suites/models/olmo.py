# labels: name::olmo author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder
"""OLMo (transformers OlmoForCausalLM, logits), a small literal config (OLMo-1B's layout: non-parametric LayerNorm, SwiGLU, no biases; hidden 1024, 4 layers, intermediate 4096, 8 heads, vocab 50304), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.OlmoForCausalLM(transformers.OlmoConfig(
        vocab_size=50304, hidden_size=1024, intermediate_size=4096, num_hidden_layers=4,
        num_attention_heads=8, num_key_value_heads=8, hidden_act="silu", max_position_embeddings=2048,
        attention_bias=False, clip_qkv=None, rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        tie_word_embeddings=True, use_cache=False))


torch_model(__file__, build, text(vocab=50304))
