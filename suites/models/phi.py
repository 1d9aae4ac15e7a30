# labels: name::phi author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder
"""Phi (transformers PhiForCausalLM, logits), a small literal config (phi-2's layout: parallel attention/MLP, partial rotary (32 of each head's 128 dims); hidden 1024, 4 layers, intermediate 4096, 8 heads, vocab 32000), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.PhiForCausalLM(transformers.PhiConfig(
        vocab_size=32000, hidden_size=1024, intermediate_size=4096, num_hidden_layers=4,
        num_attention_heads=8, hidden_act="gelu_new", max_position_embeddings=2048,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
        qk_layernorm=False, tie_word_embeddings=False, use_cache=False))


torch_model(__file__, build, text(vocab=32000))
