# labels: name::pna author::pyg task::Graph_Machine_Learning framework::torch family::pyg-gnn
"""PNA (torch_geometric.nn.PNAConv: mean/min/max/std aggregators, identity/amplification/attenuation scalers, 4
towers), two layers of 128 with ReLU and a linear head of 16, random weights, on a random graph of 1000 nodes
(64 features) and 8000 edges. Its in-degree histogram comes from a fixed seed-0 graph of the same size and
law, drawn on the host in build() (PNA uses it only for its average-degree statistics)."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.api import param
    from mudjack_probe.models import Inputs, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, ids, param, torch_model

N, E = 1000, 8000  # nodes, directed edges of a random graph
F = param("in_channels", 64)  # node features (MLAgility's GNN standard parameters)


def build():
    import numpy as np
    import torch
    from torch_geometric.nn import PNAConv

    in_degree = np.bincount(np.random.default_rng(0).integers(0, N, size=E), minlength=N)
    deg = torch.from_numpy(np.bincount(in_degree)).long()

    def pna(i, o):
        return PNAConv(i, o, aggregators=["mean", "min", "max", "std"],
                       scalers=["identity", "amplification", "attenuation"], deg=deg, towers=4)

    class PNA(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = pna(F, 128)
            self.conv2 = pna(128, 128)
            self.head = torch.nn.Linear(128, 16)

        def forward(self, x, edge_index):
            x = self.conv1(x, edge_index).relu()
            x = self.conv2(x, edge_index).relu()
            return self.head(x)

    return PNA()


torch_model(__file__, build, Inputs("n1000-e8000", (N, E), lambda t: (floats(t, (N, F)), ids(t, N, (2, E))), 1))
