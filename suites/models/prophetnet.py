# labels: name::prophetnet author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder-decoder
"""ProphetNet (transformers ProphetNetModel): prophetnet-large-uncased's architecture (2-gram main/predict streams, relative buckets) in a small literal config (hidden 512, 6+6 layers, 8 heads, FFN 2048, vocab 30522), random weights; judges the decoder's main-stream last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, batch_size, ids, seq_length, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, batch_size, ids, seq_length, torch_model

VOCAB = 30522


def build():
    import transformers

    return transformers.ProphetNetModel(transformers.ProphetNetConfig(
        vocab_size=VOCAB, hidden_size=512, encoder_ffn_dim=2048, decoder_ffn_dim=2048, num_encoder_layers=6,
        num_decoder_layers=6, num_encoder_attention_heads=8, num_decoder_attention_heads=8,
        max_position_embeddings=512, ngram=2, num_buckets=32, relative_max_distance=128,
        activation_function="gelu", use_cache=False))


B, S = batch_size(), seq_length()
torch_model(__file__, build, Inputs(f"b{B}-s{S}", (B, S), lambda t: (ids(t, VOCAB, (B, S)), ids(t, VOCAB, (B, 16))), B),
            forward=lambda m, a, b: m(input_ids=a, decoder_input_ids=b, use_cache=False))
