# labels: name::canine author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder
"""CANINE (transformers CanineModel), canine-s's literal config, random weights; inputs are Unicode code points (ids below 0x110000), hashed into 8 x 16384 buckets."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.CanineModel(transformers.CanineConfig(
        hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072, hidden_act="gelu",
        max_position_embeddings=16384, type_vocab_size=16, layer_norm_eps=1e-12, downsampling_rate=4,
        upsampling_kernel_size=4, num_hash_functions=8, num_hash_buckets=16384, local_transformer_stride=128,
        pad_token_id=0, bos_token_id=0xE000, eos_token_id=0xE001))


torch_model(__file__, build, text(vocab=0x110000))
