# labels: name::big-bird author::huggingface task::Natural_Language_Processing framework::torch family::transformers-encoder set::core
"""BigBird (transformers BigBirdModel), bigbird-roberta-base's literal config (block-sparse attention, block 64, 3 random blocks), random weights; seq 768: a multiple of the block size above (5 + 2*3)*64 = 704, below which BigBird falls back to full attention (eval mode: no random blocks drawn)."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import text, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import text, torch_model


def build():
    import transformers

    return transformers.BigBirdModel(transformers.BigBirdConfig(
        vocab_size=50358, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
        intermediate_size=3072, hidden_act="gelu_new", max_position_embeddings=4096, type_vocab_size=2,
        attention_type="block_sparse", block_size=64, num_random_blocks=3, use_bias=True,
        rescale_embeddings=False, layer_norm_eps=1e-12, pad_token_id=0, bos_token_id=1, eos_token_id=2,
        sep_token_id=66))


torch_model(__file__, build, text(vocab=50358, seq=768))
