# labels: name::biogpt author::huggingface task::Natural_Language_Processing framework::torch family::transformers-decoder
"""BioGPT (transformers BioGptForCausalLM, logits), microsoft/biogpt's literal config, random weights, use_cache=False."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.BioGptForCausalLM(transformers.BioGptConfig(
        vocab_size=42384, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
        hidden_act="gelu", max_position_embeddings=1024, scale_embedding=True, use_cache=False))


torch_model(__file__, build, text(vocab=42384))
