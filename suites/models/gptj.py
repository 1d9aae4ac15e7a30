# labels: name::gptj author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder
"""GPT-J (transformers GPTJForCausalLM, logits), a small literal config (GPT-J-6B's layout: parallel attention/MLP, partial rotary; hidden 768, 6 layers, 8 heads, rotary_dim 24, vocab 50400), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.GPTJForCausalLM(transformers.GPTJConfig(
        vocab_size=50400, n_positions=2048, n_embd=768, n_layer=6, n_head=8, rotary_dim=24,
        n_inner=3072, activation_function="gelu_new", use_cache=False))


torch_model(__file__, build, text(vocab=50400))
