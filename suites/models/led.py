# labels: name::led author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder-decoder
"""LED (transformers LEDModel), allenai/led-base-16384's literal config except an attention window of 64 (instead of 1024) so the 128-token input runs the sliding-window chunks rather than one padded window; random weights; judges the decoder's last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, batch_size, ids, seq_length, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, batch_size, ids, seq_length, torch_model

VOCAB = 50265


def build():
    import transformers

    return transformers.LEDModel(transformers.LEDConfig(
        vocab_size=VOCAB, d_model=768, encoder_layers=6, decoder_layers=6, encoder_attention_heads=12,
        decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072, max_encoder_position_embeddings=16384,
        max_decoder_position_embeddings=1024, attention_window=[64] * 6, activation_function="gelu", use_cache=False))


B, S = batch_size(), seq_length()
torch_model(__file__, build, Inputs(f"b{B}-s{S}", (B, S), lambda t: (ids(t, VOCAB, (B, S)), ids(t, VOCAB, (B, 16))), B),
            forward=lambda m, a, b: m(input_ids=a, decoder_input_ids=b, use_cache=False))
