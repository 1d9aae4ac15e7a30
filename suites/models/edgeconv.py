# labels: name::edgeconv author::pyg task::Graph_Machine_Learning framework::torch family::pyg-gnn
"""DGCNN-style EdgeConv (torch_geometric.nn.EdgeConv, max aggregation, MLP on [x_i, x_j - x_i]) on the given
edges (no dynamic k-NN), two layers of 128 with ReLU and a linear head of 16, random weights, on a random
graph of 1000 nodes (64 features) and 8000 edges."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.api import param
    from mudjack_probe.models import Inputs, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, ids, param, torch_model

N, E = 1000, 8000  # nodes, directed edges of a random graph
F = param("in_channels", 64)  # node features (MLAgility's GNN standard parameters)


def build():
    import torch
    from torch_geometric.nn import EdgeConv

    def mlp(i, o):
        return torch.nn.Sequential(torch.nn.Linear(2 * i, o), torch.nn.ReLU(), torch.nn.Linear(o, o))

    class DGCNN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = EdgeConv(mlp(F, 128), aggr="max")
            self.conv2 = EdgeConv(mlp(128, 128), aggr="max")
            self.head = torch.nn.Linear(128, 16)

        def forward(self, x, edge_index):
            x = self.conv1(x, edge_index).relu()
            x = self.conv2(x, edge_index).relu()
            return self.head(x)

    return DGCNN()


torch_model(__file__, build, Inputs("n1000-e8000", (N, E), lambda t: (floats(t, (N, F)), ids(t, N, (2, E))), 1))
