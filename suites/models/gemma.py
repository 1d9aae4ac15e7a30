# labels: name::gemma author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder set::core
"""Gemma (transformers GemmaForCausalLM, logits), a small literal config (gemma-2b's layout: multi-query attention, GeGLU, scaled embeddings; hidden 1024, 4 layers, intermediate 4096, 8 heads of 128, 1 KV head, vocab 32000), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.GemmaForCausalLM(transformers.GemmaConfig(
        vocab_size=32000, hidden_size=1024, intermediate_size=4096, num_hidden_layers=4,
        num_attention_heads=8, num_key_value_heads=1, head_dim=128, hidden_activation="gelu_pytorch_tanh",
        max_position_embeddings=8192, rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0}, tie_word_embeddings=True,
        use_cache=False))


torch_model(__file__, build, text(vocab=32000))
