# labels: name::raft author::torchvision task::Computer_Vision framework::torch family::torchvision-optical-flow
"""RAFT-small (torchvision.models.optical_flow.raft_small), random weights; two 128x128 frames, judges the last of its 12 flow predictions."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.models import Inputs, floats, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, torch_model


def build():
    import torchvision

    return torchvision.models.optical_flow.raft_small(weights=None)


FRAME = (1, 3, 128, 128)
torch_model(__file__, build, Inputs("b1-2x128x128", FRAME, lambda t: (floats(t, FRAME), floats(t, FRAME)), 1),
            pick=lambda out: (out[-1],))
