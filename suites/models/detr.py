# labels: name::detr author::huggingface task::Computer_Vision framework::torch family::transformers-vision
"""DETR (transformers DetrForObjectDetection), facebook/detr-resnet-50's literal config with its backbone as a literal transformers ResNet-50 config (no timm, no pretrained backbone, nothing downloaded), random weights; judges the raw head outputs: class logits and pred_boxes (no post-processing)."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import transformers

    backbone = transformers.ResNetConfig(
        embedding_size=64, hidden_sizes=[256, 512, 1024, 2048], depths=[3, 4, 6, 3], layer_type="bottleneck",
        hidden_act="relu", out_features=["stage4"])
    return transformers.DetrForObjectDetection(transformers.DetrConfig(
        backbone_config=backbone, use_timm_backbone=False, use_pretrained_backbone=False, num_queries=100,
        d_model=256, encoder_layers=6, decoder_layers=6, encoder_attention_heads=8, decoder_attention_heads=8,
        encoder_ffn_dim=2048, decoder_ffn_dim=2048, num_labels=91))


torch_model(__file__, build, image(), pick=lambda out: (out.logits, out.pred_boxes))
