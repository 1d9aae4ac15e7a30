#pragma once
// Internal to src/gen/: the graph one Generator::generate call grows, and
// its insertions. The shared draft (randomness, leaves, placing a node,
// rollback, the outputs) is draft.cpp; forward insertion (an op over values
// the graph has) is forward.cpp; backward insertion (a leaf replaced by an op
// over new leaves) is backward.cpp. Nothing outside gen/ includes this.

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gen/generator.hpp"
#include "gen/graph.hpp"
#include "gen/solve.hpp"

namespace mudjack::gen::detail {

// A leaf range an op's operand prefers: inside its domain with room to spare.
Interval preferred(std::string_view op, size_t slot, DType d);

class Draft {
 public:
  Draft(const GenOptions& o, Solver& solver, std::map<std::string, int64_t>& used, int64_t seed);

  Graph run();

 private:
  // --- randomness -------------------------------------------------------
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  int64_t between(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, std::max(lo, hi))(rng_);
  }
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  bool chance(double p) { return uniform(0, 1) < p; }

  std::string choose_op();

  // --- the graph under construction (draft.cpp) ---------------------------
  std::string fresh(char prefix) { return std::string(1, prefix) + std::to_string(next_++); }
  std::string leaf(const Shape& shape, DType dtype, Interval range);
  // Type, interval and domain of op over `inputs`; the node (not yet placed).
  std::optional<Node> make(const std::string& op, const std::vector<std::string>& inputs,
                           nlohmann::json attrs);
  bool place(std::optional<Node> n);
  // Leaves made during a failed attempt are removed again.
  void rollback(size_t inputs_before);
  // A shape that broadcasts against `s`: some dims set to 1, maybe fewer leading dims.
  Shape broadcast_partner(const Shape& s);
  // n split into `rank` random factors
  Shape factor(int64_t n, int rank);
  static bool elementwise(const std::string& op);
  // Outputs: every node nothing consumes; leaves nothing consumes dropped.
  void finish();

  // --- forward insertion (forward.cpp) --------------------------------------
  bool insert_forward(const std::string& op);
  Shape random_shape(int rank);
  // An existing value for `op`'s operand `slot` of dtype `d` (and rank in
  // [min_rank, max_rank]) whose interval is in the op's domain, preferring
  // computed values; or a new leaf.
  std::string operand(const std::string& op, size_t slot, DType d, int min_rank, int max_rank,
                      bool leaves_only = false);
  // An existing value of dtype d whose shape broadcasts with s and whose
  // interval passes `ok`, or a new leaf in `range`.
  template <typename Ok>
  std::string partner(const Shape& s, DType d, Interval range, Ok ok, bool leaves_only = false);
  std::optional<Node> forward(const std::string& op);
  // unary, cast, binary, comparisons, where, clamp
  std::optional<Node> forward_elementwise(const std::string& op);
  // contractions, convolutions, pooling, reductions, normalisations, shape ops
  std::optional<Node> forward_structured(const std::string& op);
  std::optional<Node> conv(const std::string& op, DType d);
  std::optional<Node> pool(const std::string& op, DType d);
  std::optional<Node> shape_op(const std::string& op, DType d);

  // --- backward insertion (backward.cpp) ------------------------------------
  // A leaf L replaced by op(new leaves) whose interval lies inside L's.
  bool insert_backward(const std::string& op);
  // Whether narrowing leaf `name` to `r` (a backward insertion) leaves a
  // floating value downstream that can only be 0 or subnormal (relu of what
  // became non-positive): the graph re-checked with the leaf's new range.
  bool underflows_with(const std::string& name, Interval r) const;
  // Every value's interval propagated again: a backward insertion narrows
  // a leaf, and what is computed from it narrows too (a later op placed on
  // it must see that, not the leaf's old range).
  void refresh_ranges();
  bool consumed_by_leaf_op(const std::string& name) const;
  // The range of a new leaf for operand `slot` of `op`: the op's preferred
  // range, scaled down by `scale` when it is symmetric.
  static Interval leaf_range(const std::string& op, size_t slot, DType d, double scale);
  std::optional<Node> backward(const std::string& op, const Input& t, double scale);
  // A leaf's new producer, leaves in the op's preferred range (scaled down
  // by `scale` when it is symmetric): unary, binary, cast, where, clamp.
  std::optional<Node> backward_elementwise(const std::string& op, const Input& t, double scale);
  // matmul, softmax, layer_norm, reductions and shape ops; conv, pool,
  // linear, batch_norm and comparisons grow forward only.
  std::optional<Node> backward_structured(const std::string& op, const Input& t, double scale);
  // reshape, transpose, slice, pad, squeeze, unsqueeze, expand, concat: a
  // leaf of another shape whose values the op moves into the target's.
  std::optional<Node> backward_shape(const std::string& op, const Input& t, double scale);
  static bool dtype_fits(const std::string& op, DType d);
  void replace_leaf(const std::string& leaf_name, Node n);

  const GenOptions& o_;
  Solver& solver_;
  std::map<std::string, int64_t>& used_;
  Rng rng_;
  Graph g_;
  Values values_;
  std::set<std::string> consumed_;  // values some node reads
  Interval last_range_;
  int next_ = 0;
};

}  // namespace mudjack::gen::detail
