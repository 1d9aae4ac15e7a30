#pragma once
// Grows random valid graphs (docs/fuzz.md): nodes are added forward (an op
// over values the graph has, new leaf inputs where it needs more) or
// backward (a leaf input replaced by an op over new leaves, whose output
// interval lies inside the leaf's, so nothing downstream leaves its
// domain). Integer attributes come from gen/solve.hpp's solvers; each op's
// output type, interval and domain from gen/ops.hpp. Within a graph, ops
// used less are drawn more. Deterministic: the same options and seed give
// the same graph, whatever was generated before.

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gen/graph.hpp"
#include "gen/solve.hpp"
#include "util/number.hpp"

namespace mudjack::gen {

// Nodes per generated graph (`mudjack fuzz --nodes`).
inline constexpr util::IntRange kNodesRange{1, 200};

struct GenOptions {
  int nodes = 10;                                 // nodes per graph
  std::vector<DType> dtypes = {DType::kFloat32};  // a graph's dtype, drawn from these
  std::vector<std::string> ops;                   // ops allowed (empty: every op)
  double backward_share = 0.3;                    // insertions tried backward
  std::string solver = "own";                     // gen/solve.hpp kSolvers
  int64_t max_numel = 4096;                       // elements per value
};

// Why options cannot generate (an unknown op or solver, nodes out of
// 1..200, no dtypes), or nullopt.
std::optional<std::string> invalid(const GenOptions& o);

class Generator {
 public:
  explicit Generator(GenOptions options);  // options must be valid
  ~Generator();
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;
  // A graph with options.nodes nodes (fewer only when no insertion could be
  // made after many tries), checked by gen::check.
  Graph generate(int64_t seed);
  const GenOptions& options() const { return options_; }

 private:
  GenOptions options_;
  std::unique_ptr<Solver> solver_;
};

// What a set of graphs covers: nodes per op, distinct attribute values per
// op ("stride=2"), distinct (rank, dtype) of each op's first input.
struct Coverage {
  std::map<std::string, int64_t> nodes;
  std::map<std::string, std::set<std::string>> attrs;
  std::map<std::string, std::set<std::string>> rank_dtype;
  void add(const Graph& g);
};

}  // namespace mudjack::gen
