# labels: name::segformer author::huggingface task::Computer_Vision framework::torch family::transformers-vision set::core
"""SegFormer (transformers SegformerForSemanticSegmentation), nvidia/segformer-b0-finetuned-ade-512-512's literal config (MiT-b0 encoder, all-MLP decode head, 150 classes), random weights; judges the segmentation logits (1, 150, H/4, W/4)."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import transformers

    return transformers.SegformerForSemanticSegmentation(transformers.SegformerConfig(
        num_encoder_blocks=4, depths=[2, 2, 2, 2], sr_ratios=[8, 4, 2, 1], hidden_sizes=[32, 64, 160, 256],
        patch_sizes=[7, 3, 3, 3], strides=[4, 2, 2, 2], num_attention_heads=[1, 2, 5, 8], mlp_ratios=[4, 4, 4, 4],
        decoder_hidden_size=256, num_labels=150))


torch_model(__file__, build, image())
