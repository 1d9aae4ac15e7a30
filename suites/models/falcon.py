# labels: name::falcon author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder
"""Falcon (transformers FalconForCausalLM, logits), a small literal config (falcon-7b's layout: multi-query attention, parallel attention/MLP, rotary, no biases; hidden 1024, 4 layers, 8 heads, vocab 32000), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.FalconForCausalLM(transformers.FalconConfig(
        vocab_size=32000, hidden_size=1024, num_hidden_layers=4, num_attention_heads=8,
        multi_query=True, parallel_attn=True, new_decoder_architecture=False, alibi=False, bias=False,
        ffn_hidden_size=4096, activation="gelu", max_position_embeddings=2048,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0}, tie_word_embeddings=True,
        use_cache=False))


torch_model(__file__, build, text(vocab=32000))
