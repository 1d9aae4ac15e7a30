# labels: name::switch-transformers author::huggingface task::Natural_Language_Processing framework::torch family::transformers-moe
"""Switch Transformers (transformers SwitchTransformersModel): switch-base-8's architecture (8 experts, top-1 routing, every other layer sparse) in a small literal config (d_model 512, 6+6 layers, 8 heads, expert FFN 1024, vocab 32128, no router jitter), random weights; judges the decoder's last_hidden_state."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, batch_size, ids, seq_length, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, batch_size, ids, seq_length, torch_model

VOCAB = 32128


def build():
    import transformers

    return transformers.SwitchTransformersModel(transformers.SwitchTransformersConfig(
        vocab_size=VOCAB, d_model=512, d_kv=64, d_ff=1024, expert_capacity=64, num_layers=6,
        num_sparse_encoder_layers=3, num_decoder_layers=6, num_sparse_decoder_layers=3, num_heads=8,
        num_experts=8, router_jitter_noise=0.0, relative_attention_num_buckets=32,
        relative_attention_max_distance=128, use_cache=False))


B, S = batch_size(), seq_length()
torch_model(__file__, build, Inputs(f"b{B}-s{S}", (B, S), lambda t: (ids(t, VOCAB, (B, S)), ids(t, VOCAB, (B, 16))), B),
            forward=lambda m, a, b: m(input_ids=a, decoder_input_ids=b, use_cache=False))
