# labels: name::sgc author::pyg task::Graph_Machine_Learning framework::torch family::pyg-gnn
"""SGC (torch_geometric.nn.SGConv, K=2) to 128 with ReLU and a linear head of 16, random weights, on a random
graph of 1000 nodes (64 features) and 8000 edges."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.api import param
    from mudjack_probe.models import Inputs, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, ids, param, torch_model

N, E = 1000, 8000  # nodes, directed edges of a random graph
F = param("in_channels", 64)  # node features (MLAgility's GNN standard parameters)
K = param("k", 2)  # propagation hops


def build():
    import torch
    from torch_geometric.nn import SGConv

    class SGC(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = SGConv(F, 128, K=K)
            self.head = torch.nn.Linear(128, 16)

        def forward(self, x, edge_index):
            return self.head(self.conv(x, edge_index).relu())

    return SGC()


torch_model(__file__, build, Inputs("n1000-e8000", (N, E), lambda t: (floats(t, (N, F)), ids(t, N, (2, E))), 1))
