# labels: name::xglm author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder
"""XGLM (transformers XGLMForCausalLM, logits), a small literal config (xglm-564M's width, heads and FFN with 8 of its 24 layers and a 32000-token vocabulary instead of 256008; sinusoidal positions, scaled embeddings), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.XGLMForCausalLM(transformers.XGLMConfig(
        vocab_size=32000, max_position_embeddings=2048, d_model=1024, ffn_dim=4096, num_layers=8,
        attention_heads=16, activation_function="gelu", scale_embedding=True, use_cache=False))


torch_model(__file__, build, text(vocab=32000))
