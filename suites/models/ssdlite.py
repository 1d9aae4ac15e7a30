# labels: name::ssdlite author::torchvision task::Computer_Vision framework::torch family::torchvision-detection
"""SSDlite320-MobileNetV3-Large (torchvision.models.detection.ssdlite320_mobilenet_v3_large), random weights; judges the head's raw outputs (cls_logits, bbox_regression over all anchors) from model.backbone on the 320x320 image tensor, bypassing model.transform and the post-processing/NMS."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import torchvision

    return torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)


def forward(m, x):
    features = list(m.backbone(x).values())
    out = m.head(features)
    return out["cls_logits"], out["bbox_regression"]


torch_model(__file__, build, image(size=(320, 320)), forward=forward, pick=tuple)
