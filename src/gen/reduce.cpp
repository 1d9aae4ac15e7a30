#include "gen/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace mudjack::gen {
namespace {

using nlohmann::json;

// Simpler values for one attribute, or nullopt: the identity of strides,
// dilations, steps and groups, no padding.
std::optional<json> simpler(const std::string& key, const json& v) {
  const bool one = key == "stride" || key == "dilation" || key == "step" || key == "groups";
  const bool zero = key == "padding";
  if (!one && !zero) return std::nullopt;
  const int64_t target = one ? 1 : 0;
  if (v.is_number_integer()) {
    if (v.get<int64_t>() == target) return std::nullopt;
    return json(target);
  }
  if (v.is_array()) {
    json out = json::array();
    bool changed = false;
    for (const auto& x : v) {
      changed = changed || x != json(target);
      out.push_back(target);
    }
    if (!changed) return std::nullopt;
    return out;
  }
  return std::nullopt;
}

std::vector<Graph> attribute_candidates(const Graph& g) {
  std::vector<Graph> out;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& [key, value] : g.nodes[i].attrs.items()) {
      auto s = simpler(key, value);
      if (!s) continue;
      Graph c = g;
      c.nodes[i].attrs[key] = *s;
      if (!reinfer(c)) out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace

std::optional<Graph> subgraph(const Graph& g, const std::set<size_t>& keep) {
  if (keep.empty()) return std::nullopt;
  Graph source = g;
  Values values;
  if (check(source, &values)) return std::nullopt;
  Graph out;
  out.seed = g.seed;
  out.dtype = g.dtype;
  std::set<std::string> defined;
  std::set<std::string> kept_nodes;
  for (size_t i : keep) kept_nodes.insert(g.nodes.at(i).name);
  // graph inputs the kept nodes read, in the original order, then the
  // dropped producers they read, as new inputs
  std::set<std::string> read;
  for (size_t i : keep) read.insert(g.nodes[i].inputs.begin(), g.nodes[i].inputs.end());
  for (const auto& in : g.inputs) {
    if (read.count(in.name) != 0) out.inputs.push_back(in);
  }
  for (const auto& n : g.nodes) {
    if (read.count(n.name) == 0 || kept_nodes.count(n.name) != 0) continue;
    const auto& v = values.at(n.name);
    Input in;
    in.name = n.name;
    in.shape = v.shape;
    in.dtype = v.dtype;
    in.low = v.range.lo;
    in.high = v.range.hi;
    if (v.dtype == DType::kInt32) {
      in.low = std::ceil(in.low);
      in.high = std::floor(in.high);
    }
    out.inputs.push_back(in);
  }
  std::set<std::string> consumed;
  for (size_t i : keep) {
    out.nodes.push_back(g.nodes[i]);
    consumed.insert(g.nodes[i].inputs.begin(), g.nodes[i].inputs.end());
  }
  for (const auto& n : out.nodes) {
    if (consumed.count(n.name) == 0) out.outputs.push_back(n.name);
  }
  if (check(out)) return std::nullopt;
  return out;
}

Graph reduce(const Graph& g, const StillShows& test, ReduceStats* stats, int max_batches) {
  ReduceStats st;
  st.nodes_before = g.nodes.size();
  Graph best = g;
  auto run = [&](const std::vector<Graph>& cands) -> std::optional<size_t> {
    if (cands.empty() || st.batches >= max_batches) return std::nullopt;
    ++st.batches;
    st.candidates += static_cast<int>(cands.size());
    const auto shows = test(cands);
    // the smallest candidate that still shows it
    std::optional<size_t> pick;
    for (size_t i = 0; i < cands.size() && i < shows.size(); ++i) {
      if (shows[i] && (!pick || cands[i].nodes.size() < cands[*pick].nodes.size())) pick = i;
    }
    return pick;
  };

  // ddmin over node indices
  size_t n = 2;
  while (best.nodes.size() > 1 && st.batches < max_batches) {
    const size_t size = best.nodes.size();
    n = std::min(n, size);
    std::vector<std::set<size_t>> chunks(n);
    for (size_t i = 0; i < size; ++i) chunks[i * n / size].insert(i);
    std::vector<Graph> cands;
    std::vector<bool> is_subset;
    for (const auto& c : chunks) {
      if (auto s = subgraph(best, c)) {
        cands.push_back(std::move(*s));
        is_subset.push_back(true);
      }
    }
    if (n > 2) {
      for (const auto& c : chunks) {
        std::set<size_t> rest;
        for (size_t i = 0; i < size; ++i) {
          if (c.count(i) == 0) rest.insert(i);
        }
        if (auto s = subgraph(best, rest)) {
          cands.push_back(std::move(*s));
          is_subset.push_back(false);
        }
      }
    }
    const auto pick = run(cands);
    if (pick) {
      best = cands[*pick];
      n = is_subset[*pick] ? 2 : std::max<size_t>(n - 1, 2);
    } else if (n < size) {
      n = std::min(2 * n, size);
    } else {
      break;
    }
  }
  // attributes, one simplification at a time
  while (st.batches < max_batches) {
    auto cands = attribute_candidates(best);
    const auto pick = run(cands);
    if (!pick) break;
    best = cands[*pick];
  }
  st.nodes_after = best.nodes.size();
  if (stats != nullptr) *stats = st;
  return best;
}

}  // namespace mudjack::gen
