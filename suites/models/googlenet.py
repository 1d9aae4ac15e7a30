# labels: name::googlenet author::torchvision task::Computer_Vision framework::torch family::torchvision-classification
"""GoogLeNet (torchvision.models.googlenet, aux_logits=False, init_weights=True), random weights; logits."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import image, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import image, torch_model


def build():
    import torchvision

    return torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True)


torch_model(__file__, build, image())
