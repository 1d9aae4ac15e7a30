# labels: name::speech-to-text author::huggingface task::Audio framework::torch family::transformers-audio
"""Speech2Text (transformers Speech2TextModel), facebook/s2t-small-librispeech-asr's literal config, random weights; 1000 frames of 80 filterbank features (b, 1000, 80) and 16 decoder ids; judges the decoder's last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, batch_size, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, batch_size, floats, ids, torch_model

VOCAB = 10000


def build():
    import transformers

    return transformers.Speech2TextModel(transformers.Speech2TextConfig(
        vocab_size=VOCAB, d_model=256, encoder_layers=12, decoder_layers=6, encoder_attention_heads=4,
        decoder_attention_heads=4, encoder_ffn_dim=2048, decoder_ffn_dim=2048, max_source_positions=6000,
        max_target_positions=1024, input_feat_per_channel=80, input_channels=1, num_conv_layers=2,
        conv_kernel_sizes=[5, 5], conv_channels=1024, activation_function="relu", scale_embedding=True,
        use_cache=False))


B = batch_size()
torch_model(__file__, build,
            Inputs(f"b{B}-1000x80", (B, 1000, 80), lambda t: (floats(t, (B, 1000, 80)), ids(t, VOCAB, (B, 16))), B),
            forward=lambda m, a, b: m(input_features=a, decoder_input_ids=b, use_cache=False))
