# labels: name::codegen author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder
"""CodeGen (transformers CodeGenForCausalLM, logits), a small literal config (codegen-350M's width, heads and rotary_dim with 6 of its 20 layers: hidden 1024, 16 heads, rotary_dim 32, vocab 51200), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.CodeGenForCausalLM(transformers.CodeGenConfig(
        vocab_size=51200, n_positions=2048, n_ctx=2048, n_embd=1024, n_layer=6, n_head=16, rotary_dim=32,
        n_inner=None, activation_function="gelu_new", use_cache=False))


torch_model(__file__, build, text(vocab=51200))
