# labels: name::starcoder2 author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder
"""StarCoder2 (transformers Starcoder2ForCausalLM, logits), a small literal config (starcoder2-3b's layout: LayerNorm, biases, GELU MLP, grouped-query attention; hidden 1024, 4 layers, intermediate 4096, 8 heads, 2 KV heads, vocab 49152), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.Starcoder2ForCausalLM(transformers.Starcoder2Config(
        vocab_size=49152, hidden_size=1024, intermediate_size=4096, num_hidden_layers=4,
        num_attention_heads=8, num_key_value_heads=2, hidden_act="gelu_pytorch_tanh",
        max_position_embeddings=16384, sliding_window=4096, use_bias=True, bos_token_id=0, eos_token_id=0,
        rope_parameters={"rope_type": "default", "rope_theta": 999999.4420358813},
        tie_word_embeddings=True, use_cache=False))


torch_model(__file__, build, text(vocab=49152))
