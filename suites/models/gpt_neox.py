# labels: name::gpt-neox author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder set::core
"""GPT-NeoX (transformers GPTNeoXForCausalLM, logits), pythia-70m's literal config (parallel residual, rotary on 25% of each head), random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.GPTNeoXForCausalLM(transformers.GPTNeoXConfig(
        vocab_size=50304, hidden_size=512, num_hidden_layers=6, num_attention_heads=8, intermediate_size=2048,
        hidden_act="gelu", max_position_embeddings=2048, use_parallel_residual=True,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
        tie_word_embeddings=False, use_cache=False))


torch_model(__file__, build, text(vocab=50304))
