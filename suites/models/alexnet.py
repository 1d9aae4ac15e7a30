# labels: name::alexnet author::torchvision task::Computer_Vision framework::torch family::torchvision-classification
"""AlexNet (torchvision.models.alexnet), random weights; logits."""

from __future__ import annotations

from mudjack_probe.models import image, torch_model


def build():
    import torchvision

    return torchvision.models.alexnet(weights=None)


torch_model(__file__, build, image())
