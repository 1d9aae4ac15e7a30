# labels: name::stablelm author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder
"""StableLM (transformers StableLmForCausalLM, logits), a small literal config (stablelm-2's layout: LayerNorm, QKV bias, rotary on 25% of each head; hidden 1024, 4 layers, intermediate 2816, 8 heads, vocab 32000), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.StableLmForCausalLM(transformers.StableLmConfig(
        vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=4,
        num_attention_heads=8, num_key_value_heads=8, hidden_act="silu", max_position_embeddings=4096,
        use_qkv_bias=True, qk_layernorm=False, use_parallel_residual=False,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
        tie_word_embeddings=False, use_cache=False))


torch_model(__file__, build, text(vocab=32000))
