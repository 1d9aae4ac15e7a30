# labels: name::t5 author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder-decoder set::core
"""T5 (transformers T5Model), t5-small's literal config, random weights; judges the decoder's last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, batch_size, ids, seq_length, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, batch_size, ids, seq_length, torch_model

VOCAB = 32128


def build():
    import transformers

    return transformers.T5Model(transformers.T5Config(
        vocab_size=VOCAB, d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_decoder_layers=6, num_heads=8,
        relative_attention_num_buckets=32, relative_attention_max_distance=128, feed_forward_proj="relu",
        layer_norm_epsilon=1e-6, use_cache=False))


B, S = batch_size(), seq_length()
torch_model(__file__, build, Inputs(f"b{B}-s{S}", (B, S), lambda t: (ids(t, VOCAB, (B, S)), ids(t, VOCAB, (B, 16))), B),
            forward=lambda m, a, b: m(input_ids=a, decoder_input_ids=b, use_cache=False))
