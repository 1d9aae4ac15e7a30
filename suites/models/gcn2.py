# labels: name::gcn2 author::pyg task::Graph_Machine_Learning framework::torch family::pyg-gnn
"""GCNII (torch_geometric.nn.GCN2Conv, alpha=0.1, theta=0.5): a linear layer to 128, four GCN2Conv layers with
ReLU, a linear head of 16, random weights, on a random graph of 1000 nodes (64 features) and 8000 edges."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.api import param
    from mudjack_probe.models import Inputs, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, ids, param, torch_model

N, E = 1000, 8000  # nodes, directed edges of a random graph
F = param("in_channels", 64)  # node features (MLAgility's GNN standard parameters)
ALPHA = param("alpha", 0.1)  # teleport (restart) probability
LAYERS = param("num_layers", 4)  # GCN2Conv layers


def build():
    import torch
    from torch_geometric.nn import GCN2Conv

    class GCNII(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin_in = torch.nn.Linear(F, 128)
            self.convs = torch.nn.ModuleList([GCN2Conv(128, alpha=ALPHA, theta=0.5, layer=i + 1) for i in range(LAYERS)])
            self.lin_out = torch.nn.Linear(128, 16)

        def forward(self, x, edge_index):
            x = x_0 = self.lin_in(x).relu()
            for conv in self.convs:
                x = conv(x, x_0, edge_index).relu()
            return self.lin_out(x)

    return GCNII()


torch_model(__file__, build, Inputs("n1000-e8000", (N, E), lambda t: (floats(t, (N, F)), ids(t, N, (2, E))), 1))
