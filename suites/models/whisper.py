# labels: name::whisper author::huggingface task::Audio framework::torch family::transformers-audio set::core
"""Whisper (transformers WhisperModel), openai/whisper-base's literal config, random weights; log-mel input_features (b, 80, 3000) and 16 decoder ids; judges the decoder's last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, batch_size, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, batch_size, floats, ids, torch_model

VOCAB = 51865


def build():
    import transformers

    return transformers.WhisperModel(transformers.WhisperConfig(
        vocab_size=VOCAB, num_mel_bins=80, d_model=512, encoder_layers=6, decoder_layers=6,
        encoder_attention_heads=8, decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048,
        max_source_positions=1500, max_target_positions=448, activation_function="gelu", use_cache=False))


B = batch_size()
torch_model(__file__, build,
            Inputs(f"b{B}-80x3000", (B, 80, 3000), lambda t: (floats(t, (B, 80, 3000)), ids(t, VOCAB, (B, 16))), B),
            forward=lambda m, a, b: m(input_features=a, decoder_input_ids=b, use_cache=False))
