# labels: name::m2m100 author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder-decoder
"""M2M100 (transformers M2M100Model): facebook/m2m100_418M's architecture and vocab (128112) in a smaller literal config (d_model 512, 6+6 layers, 8 heads, FFN 2048), random weights; judges the decoder's last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, batch_size, ids, seq_length, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, batch_size, ids, seq_length, torch_model

VOCAB = 128112


def build():
    import transformers

    return transformers.M2M100Model(transformers.M2M100Config(
        vocab_size=VOCAB, d_model=512, encoder_layers=6, decoder_layers=6, encoder_attention_heads=8,
        decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048, max_position_embeddings=1024,
        activation_function="relu", scale_embedding=True, use_cache=False))


B, S = batch_size(), seq_length()
torch_model(__file__, build, Inputs(f"b{B}-s{S}", (B, S), lambda t: (ids(t, VOCAB, (B, S)), ids(t, VOCAB, (B, 16))), B),
            forward=lambda m, a, b: m(input_ids=a, decoder_input_ids=b, use_cache=False))
