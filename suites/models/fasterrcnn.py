# labels: name::fasterrcnn author::torchvision task::Computer_Vision framework::torch family::torchvision-detection
"""Faster R-CNN-MobileNetV3-Large-320-FPN (torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn), random weights; judges the deterministic parts on the 320x320 image tensor (model.transform and NMS bypassed): the box head's class_logits and box_regression on 8 fixed proposal boxes (MultiScaleRoIAlign over the backbone+FPN features), then the RPN head's raw objectness and box deltas per level."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model

SIZE = (320, 320)


def build():
    import torchvision

    return torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None)


def proposals(x):
    """8 fixed boxes (x1, y1, x2, y2) spread over the image, in pixels."""
    import torch

    h, w = x.shape[-2], x.shape[-1]
    rel = [[0.0, 0.0, 0.5, 0.5], [0.5, 0.5, 1.0, 1.0], [0.25, 0.25, 0.75, 0.75], [0.1, 0.6, 0.4, 0.95],
           [0.6, 0.05, 0.95, 0.3], [0.0, 0.0, 1.0, 1.0], [0.45, 0.2, 0.55, 0.8], [0.05, 0.4, 0.9, 0.55]]
    return torch.tensor([[a * w, b * h, c * w, d * h] for a, b, c, d in rel], dtype=x.dtype, device=x.device)


def forward(m, x):
    features = m.backbone(x)
    objectness, deltas = m.rpn.head(list(features.values()))
    boxes, image_shapes = [proposals(x)], [(x.shape[-2], x.shape[-1])]
    pooled = m.roi_heads.box_roi_pool(features, boxes, image_shapes)
    class_logits, box_regression = m.roi_heads.box_predictor(m.roi_heads.box_head(pooled))
    return (class_logits, box_regression, *objectness, *deltas)


torch_model(__file__, build, image(size=SIZE), forward=forward, pick=tuple)
