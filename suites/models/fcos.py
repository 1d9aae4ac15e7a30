# labels: name::fcos author::torchvision task::Computer_Vision framework::torch family::torchvision-detection
"""FCOS-ResNet50-FPN (torchvision.models.detection.fcos_resnet50_fpn), random weights; judges the head's raw outputs (cls_logits, bbox_regression, bbox_ctrness over all locations) from model.backbone (ResNet-50 + FPN P3-P7) on the 320x320 image tensor, bypassing model.transform and the post-processing/NMS."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import torchvision

    return torchvision.models.detection.fcos_resnet50_fpn(weights=None, weights_backbone=None)


def forward(m, x):
    features = list(m.backbone(x).values())
    out = m.head(features)
    return out["cls_logits"], out["bbox_regression"], out["bbox_ctrness"]


torch_model(__file__, build, image(size=(320, 320)), forward=forward, pick=tuple)
