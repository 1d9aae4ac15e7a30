# labels: name::funnel author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""Funnel Transformer (transformers FunnelModel, encoder and upsampling decoder), funnel-transformer/small's literal config, random weights."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.FunnelModel(transformers.FunnelConfig(
        vocab_size=30522, block_sizes=[4, 4, 4], num_decoder_layers=2, d_model=768, n_head=12, d_head=64,
        d_inner=3072, hidden_act="gelu_new", layer_norm_eps=1e-9, pooling_type="mean",
        attention_type="relative_shift", separate_cls=True, truncate_seq=True, pool_q_only=True))


torch_model(__file__, build, text(vocab=30522))
