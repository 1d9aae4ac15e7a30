# labels: name::shufflenet-v2 author::torchvision task::Computer_Vision framework::torch family::torchvision-classification
"""ShuffleNetV2 x1.0 (torchvision.models.shufflenet_v2_x1_0), random weights; logits."""

from __future__ import annotations

from mudjack_probe.models import image, torch_model


def build():
    import torchvision

    return torchvision.models.shufflenet_v2_x1_0(weights=None)


torch_model(__file__, build, image())
