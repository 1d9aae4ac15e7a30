# labels: name::gpt-neo author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder
"""GPT-Neo (transformers GPTNeoForCausalLM, logits), gpt-neo-125M's literal config (alternating global/local attention, window 256), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.GPTNeoForCausalLM(transformers.GPTNeoConfig(
        vocab_size=50257, max_position_embeddings=2048, hidden_size=768, num_layers=12,
        attention_types=[[["global", "local"], 6]], num_heads=12, window_size=256,
        activation_function="gelu_new", use_cache=False))


torch_model(__file__, build, text(vocab=50257))
