# labels: name::graph-transformer author::pyg task::Graph_Machine_Learning framework::torch family::pyg-gnn
"""Graph transformer (torch_geometric.nn.TransformerConv), two layers (4 heads of 32, then 1 head of 16) with
ReLU, random weights, on a random graph of 1000 nodes (64 features) and 8000 edges."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.api import param
    from mudjack_probe.models import Inputs, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, ids, param, torch_model

N, E = 1000, 8000  # nodes, directed edges of a random graph
F = param("in_channels", 64)  # node features (MLAgility's GNN standard parameters)
OUT = param("out_channels", 16)  # output features


def build():
    import torch
    from torch_geometric.nn import TransformerConv

    class GraphTransformer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = TransformerConv(F, 32, heads=4)
            self.conv2 = TransformerConv(32 * 4, OUT, heads=1)

        def forward(self, x, edge_index):
            return self.conv2(self.conv1(x, edge_index).relu(), edge_index)

    return GraphTransformer()


torch_model(__file__, build, Inputs("n1000-e8000", (N, E), lambda t: (floats(t, (N, F)), ids(t, N, (2, E))), 1))
