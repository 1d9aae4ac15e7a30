# labels: name::deeplabv3 author::torchvision task::Computer_Vision framework::torch family::torchvision-segmentation set::core
"""DeepLabV3-MobileNetV3-Large (torchvision.models.segmentation.deeplabv3_mobilenet_v3_large, aux_loss=False), random weights; judges out['out']."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import torchvision

    return torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False)


torch_model(__file__, build, image(), pick=lambda out: (out["out"],))
