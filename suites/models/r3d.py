# labels: name::r3d author::torchvision task::Computer_Vision framework::torch family::torchvision-video
"""R3D-18 (torchvision.models.video.r3d_18), random weights; a 16-frame 112x112 clip, logits."""

from __future__ import annotations

from mudjack_probe.models import tensor, torch_model


def build():
    import torchvision

    return torchvision.models.video.r3d_18(weights=None)


torch_model(__file__, build, tensor("b1-16x112x112", (1, 3, 16, 112, 112)))
