# labels: name::longt5 author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder-decoder
"""LongT5 (transformers LongT5Model), google/long-t5-tglobal-base's literal config (transient-global attention), random weights; judges the decoder's last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, batch_size, ids, seq_length, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, batch_size, ids, seq_length, torch_model

VOCAB = 32128


def build():
    import transformers

    return transformers.LongT5Model(transformers.LongT5Config(
        vocab_size=VOCAB, d_model=768, d_kv=64, d_ff=2048, num_layers=12, num_decoder_layers=12, num_heads=12,
        local_radius=127, global_block_size=16, relative_attention_num_buckets=32,
        relative_attention_max_distance=128, feed_forward_proj="gated-gelu", encoder_attention_type="transient-global",
        layer_norm_epsilon=1e-6, tie_word_embeddings=False, use_cache=False))


B, S = batch_size(), seq_length()
torch_model(__file__, build, Inputs(f"b{B}-s{S}", (B, S), lambda t: (ids(t, VOCAB, (B, S)), ids(t, VOCAB, (B, 16))), B),
            forward=lambda m, a, b: m(input_ids=a, decoder_input_ids=b, use_cache=False))
