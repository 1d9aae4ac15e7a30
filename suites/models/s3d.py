# labels: name::s3d author::torchvision task::Computer_Vision framework::torch family::torchvision-video
"""S3D (torchvision.models.video.s3d), random weights; a 16-frame 224x224 clip (its smallest valid input), logits."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import tensor, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import tensor, torch_model


def build():
    import torchvision

    return torchvision.models.video.s3d(weights=None)


torch_model(__file__, build, tensor("b1-16x224x224", (1, 3, 16, 224, 224)))
