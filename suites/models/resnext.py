# labels: name::resnext author::torchvision task::Computer_Vision framework::torch family::torchvision-classification set::core
"""ResNeXt-50 32x4d (torchvision.models.resnext50_32x4d), random weights; logits."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import torchvision

    return torchvision.models.resnext50_32x4d(weights=None)


torch_model(__file__, build, image())
