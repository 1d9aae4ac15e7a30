# labels: name::wide-resnet author::torchvision task::Computer_Vision framework::torch family::torchvision-classification
"""Wide ResNet-50-2 (torchvision.models.wide_resnet50_2), random weights; logits."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import torchvision

    return torchvision.models.wide_resnet50_2(weights=None)


torch_model(__file__, build, image())
