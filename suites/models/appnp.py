# labels: name::appnp author::pyg task::Graph_Machine_Learning framework::torch family::pyg-gnn
"""APPNP (torch_geometric.nn.APPNP, K=10, alpha=0.1) after a two-layer MLP 64-128-16 with ReLU, random weights,
on a random graph of 1000 nodes (64 features) and 8000 edges."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.api import param
    from mudjack_probe.models import Inputs, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, ids, param, torch_model

N, E = 1000, 8000  # nodes, directed edges of a random graph
F = param("in_channels", 64)  # node features (MLAgility's GNN standard parameters)
K = param("k", 10)  # propagation hops
ALPHA = param("alpha", 0.1)  # teleport (restart) probability


def build():
    import torch
    from torch_geometric.nn import APPNP

    class APPNPNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin1 = torch.nn.Linear(F, 128)
            self.lin2 = torch.nn.Linear(128, 16)
            self.prop = APPNP(K=K, alpha=ALPHA)

        def forward(self, x, edge_index):
            return self.prop(self.lin2(self.lin1(x).relu()), edge_index)

    return APPNPNet()


torch_model(__file__, build, Inputs("n1000-e8000", (N, E), lambda t: (floats(t, (N, F)), ids(t, N, (2, E))), 1))
