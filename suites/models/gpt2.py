# labels: name::gpt2 author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder set::core
"""GPT-2 (transformers GPT2LMHeadModel, logits), gpt2 (124M)'s literal config, random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.GPT2LMHeadModel(transformers.GPT2Config(
        vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12,
        activation_function="gelu_new", layer_norm_epsilon=1e-5, use_cache=False))


torch_model(__file__, build, text(vocab=50257))
