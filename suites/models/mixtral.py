# labels: name::mixtral author::huggingface task::Natural_Language_Processing framework::torch family::transformers-moe set::core
"""Mixtral (transformers MixtralForCausalLM, logits), a small literal config (hidden 768, 4 layers, 8 experts of intermediate 2048, top-2 routing, 8 heads, 2 KV heads, vocab 32000; experts_implementation="eager": the default grouped_mm has no float64 kernel for the reference), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.MixtralForCausalLM(transformers.MixtralConfig(
        vocab_size=32000, hidden_size=768, intermediate_size=2048, num_hidden_layers=4,
        num_attention_heads=8, num_key_value_heads=2, hidden_act="silu", max_position_embeddings=32768,
        rms_norm_eps=1e-5, num_local_experts=8, num_experts_per_tok=2, router_jitter_noise=0.0,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0}, tie_word_embeddings=False,
        experts_implementation="eager", use_cache=False))


torch_model(__file__, build, text(vocab=32000))
