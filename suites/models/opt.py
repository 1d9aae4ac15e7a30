# labels: name::opt author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder set::core
"""OPT (transformers OPTForCausalLM, logits), opt-125m's literal config, random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.OPTForCausalLM(transformers.OPTConfig(
        vocab_size=50272, hidden_size=768, num_hidden_layers=12, ffn_dim=3072, num_attention_heads=12,
        max_position_embeddings=2048, word_embed_proj_dim=768, do_layer_norm_before=True,
        activation_function="relu", use_cache=False))


torch_model(__file__, build, text(vocab=50272))
