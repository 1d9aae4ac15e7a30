# labels: name::fnet author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""FNet (transformers FNetModel), fnet-base's literal config (Fourier mixing by torch.fft, not the TPU matmul form), random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.FNetModel(transformers.FNetConfig(
        vocab_size=32000, hidden_size=768, num_hidden_layers=12, intermediate_size=3072, hidden_act="gelu_new",
        max_position_embeddings=512, type_vocab_size=4, use_tpu_fourier_optimizations=False,
        tpu_short_seq_length=512, layer_norm_eps=1e-12, pad_token_id=3, bos_token_id=1, eos_token_id=2))


torch_model(__file__, build, text(vocab=32000))
