# labels: name::graph-unet author::pyg task::Graph_Machine_Learning framework::torch family::pyg-gnn
"""Graph U-Net (torch_geometric.nn.GraphUNet: GCNConv with TopKPooling, depth 3, pool ratio 0.5, hidden 128, out
16, ReLU), random weights, on a random graph of 1000 nodes (64 features) and 8000 edges. Top-k pooling selects
nodes by score, so a near tie that rounds differently can change the selection."""

from __future__ import annotations

if __name__.startswith("mudjack_suite_"):  # read by MudJack's models suite
    from mudjack_probe.api import param
    from mudjack_probe.models import Inputs, floats, ids, torch_model
else:  # alone (python this file, or mudjack check this file): the framework only, one forward pass
    from _standalone import Inputs, floats, ids, param, torch_model

N, E = 1000, 8000  # nodes, directed edges of a random graph
F = param("in_channels", 64)  # node features (MLAgility's GNN standard parameters)


def build():
    from torch_geometric.nn import GraphUNet

    return GraphUNet(F, 128, 16, depth=3, pool_ratios=0.5)


torch_model(__file__, build, Inputs("n1000-e8000", (N, E), lambda t: (floats(t, (N, F)), ids(t, N, (2, E))), 1))
