#include "gen/generator.hpp"

#include <algorithm>

#include "gen/draft.hpp"
#include "gen/ops.hpp"
#include "util/error.hpp"

namespace mudjack::gen {

std::optional<std::string> invalid(const GenOptions& o) {
  if (auto why = util::out_of_range("nodes per graph", int64_t{o.nodes}, kNodesRange)) return why;
  if (o.dtypes.empty()) return "no dtypes to generate";
  for (DType d : o.dtypes) {
    if (d == DType::kBool) return "bool is not a graph dtype";
  }
  for (const auto& op : o.ops) {
    if (find_op(op) == nullptr) return "unknown op '" + op + "'";
  }
  if (std::find(std::begin(kSolvers), std::end(kSolvers), o.solver) == std::end(kSolvers)) {
    return "unknown solver '" + o.solver + "' (own, z3)";
  }
  if (make_solver(o.solver) == nullptr) {
    return "solver '" + o.solver + "' is not built into this engine (cmake -DMUDJACK_Z3=OFF)";
  }
  if (o.max_numel < 1) return "max_numel must be positive";
  return std::nullopt;
}

Generator::Generator(GenOptions options)
    : options_(std::move(options)), solver_(make_solver(options_.solver)) {}

Generator::~Generator() = default;

Graph Generator::generate(int64_t seed) {
  // A graph the rules refuse would be a generator bug: it is dropped and the
  // next sub-seed tried, never written.
  for (int64_t attempt = 0; attempt < 1000; ++attempt) {
    std::map<std::string, int64_t> used;  // per graph: a graph depends on its seed alone
    Graph g = detail::Draft(options_, *solver_, used, seed * 7919 + attempt).run();
    g.seed = seed;
    if (!g.nodes.empty() && !check(g)) return g;
  }
  throw util::FatalError("no valid graph could be grown from these ops and dtypes (seed " +
                         std::to_string(seed) + ")");
}

void Coverage::add(const Graph& g) {
  Values values;
  Graph copy = g;
  if (check(copy, &values)) return;
  for (const auto& n : g.nodes) {
    ++nodes[n.op];
    for (const auto& [k, v] : n.attrs.items()) attrs[n.op].insert(k + "=" + v.dump());
    const auto& first = values.at(n.inputs.at(0));
    rank_dtype[n.op].insert(std::to_string(first.shape.size()) + ":" +
                            std::string(to_string(first.dtype)));
  }
}

}  // namespace mudjack::gen
