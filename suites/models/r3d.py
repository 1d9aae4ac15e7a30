# labels: name::r3d author::torchvision task::Computer_Vision framework::torch family::torchvision-video
"""R3D-18 (torchvision.models.video.r3d_18), random weights; a 16-frame 112x112 clip, logits."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import tensor, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import tensor, torch_model


def build():
    import torchvision

    return torchvision.models.video.r3d_18(weights=None)


torch_model(__file__, build, tensor("b1-16x112x112", (1, 3, 16, 112, 112)))
