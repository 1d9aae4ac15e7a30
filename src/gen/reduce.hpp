#pragma once
// Shrinks a graph that shows a finding to a smallest graph that still shows
// it: delta debugging (ddmin) over its nodes, then over its attributes.
//
// Nodes: a candidate keeps a subset of the nodes; a kept node's input whose
// producer was dropped becomes a graph input of the same shape and dtype,
// drawn from the producer's interval (so every op stays in its domain), and
// the candidate's outputs are the kept nodes nothing kept consumes. Every
// candidate passes gen::check.
// Attributes: each node's strides, dilations and steps set to 1, paddings to
// 0 and groups to 1, one at a time, kept when the graph still checks (shapes
// re-inferred downstream) and still shows the finding.
//
// Candidates are tested in batches (one `StillShows` call per ddmin step), so a
// caller can run a batch as one run.

#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "gen/graph.hpp"

namespace mudjack::gen {

// For each candidate, whether it still shows the finding.
using StillShows = std::function<std::vector<bool>(const std::vector<Graph>&)>;

struct ReduceStats {
  size_t nodes_before = 0;
  size_t nodes_after = 0;
  int batches = 0;     // StillShows calls
  int candidates = 0;  // graphs tested
};

// The subgraph keeping the nodes at `keep` (indices into g.nodes), or
// nullopt when it is empty or does not check.
std::optional<Graph> subgraph(const Graph& g, const std::set<size_t>& keep);

// The smallest graph found that still shows the finding (g itself when no
// candidate does). `max_batches` bounds the StillShows calls.
Graph reduce(const Graph& g, const StillShows& test, ReduceStats* stats = nullptr,
             int max_batches = 40);

}  // namespace mudjack::gen
