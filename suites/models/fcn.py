# labels: name::fcn author::torchvision task::Computer_Vision framework::torch family::torchvision-segmentation set::core
"""FCN-ResNet50 (torchvision.models.segmentation.fcn_resnet50, aux_loss=False), random weights; judges out['out']."""

from __future__ import annotations

from mudjack_probe.models import image, torch_model


def build():
    import torchvision

    return torchvision.models.segmentation.fcn_resnet50(weights=None, weights_backbone=None, aux_loss=False)


torch_model(__file__, build, image(), pick=lambda out: (out["out"],))
