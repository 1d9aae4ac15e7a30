# labels: name::nystromformer author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""Nyströmformer (transformers NystromformerModel), nystromformer-512's literal config (64 landmarks), random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.NystromformerModel(transformers.NystromformerConfig(
        vocab_size=30000, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
        hidden_act="gelu_new", max_position_embeddings=510, type_vocab_size=2, segment_means_seq_len=64,
        num_landmarks=64, conv_kernel_size=65, inv_coeff_init_option=False, layer_norm_eps=1e-5,
        pad_token_id=1, bos_token_id=0, eos_token_id=2))


torch_model(__file__, build, text(vocab=30000))
