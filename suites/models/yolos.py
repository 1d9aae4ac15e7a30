# labels: name::yolos author::huggingface task::Computer_Vision framework::torch family::transformers-vision
"""YOLOS (transformers YolosForObjectDetection), hustvl/yolos-small's literal config (position table for 800x1333, interpolated to the 224x224 input; 100 detection tokens, 91 classes), random weights; judges the raw head outputs: class logits and pred_boxes (no post-processing)."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import transformers

    return transformers.YolosForObjectDetection(transformers.YolosConfig(
        hidden_size=384, num_hidden_layers=12, num_attention_heads=6, intermediate_size=1536,
        image_size=[800, 1333], patch_size=16, num_detection_tokens=100, use_mid_position_embeddings=False,
        num_labels=91))


torch_model(__file__, build, image(), pick=lambda out: (out.logits, out.pred_boxes))
