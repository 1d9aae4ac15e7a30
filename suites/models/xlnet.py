# labels: name::xlnet author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""XLNet (transformers XLNetModel), xlnet-base-cased's literal config, random weights; no memory (mem_len None, use_mems_eval False), so the outputs are plain tensors."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.XLNetModel(transformers.XLNetConfig(
        vocab_size=32000, d_model=768, n_layer=12, n_head=12, d_inner=3072, ff_activation="gelu",
        attn_type="bi", untie_r=True, bi_data=False, clamp_len=-1, same_length=False, layer_norm_eps=1e-12,
        mem_len=None, use_mems_eval=False, use_mems_train=False, pad_token_id=5, bos_token_id=1, eos_token_id=2))


torch_model(__file__, build, text(vocab=32000))
