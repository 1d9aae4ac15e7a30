# labels: name::gpt-bigcode author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder
"""GPTBigCode (transformers GPTBigCodeForCausalLM, logits), bigcode/tiny_starcoder_py (164M)'s literal config (multi-query attention), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.GPTBigCodeForCausalLM(transformers.GPTBigCodeConfig(
        vocab_size=49152, n_positions=8192, n_embd=768, n_layer=20, n_head=12, n_inner=3072,
        activation_function="gelu_pytorch_tanh", multi_query=True, use_cache=False))


torch_model(__file__, build, text(vocab=49152))
