// Backward insertion (src/gen/draft.hpp): a leaf input replaced by an op over
// new leaves whose output interval lies inside the leaf's, so nothing
// downstream leaves its domain.

#include "gen/draft.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gen/ops.hpp"

namespace mudjack::gen::detail {
namespace {

using nlohmann::json;

bool contains(Interval outer, Interval inner) {
  return inner.lo >= outer.lo && inner.hi <= outer.hi;
}

}  // namespace

bool Draft::insert_backward(const std::string& op) {
  std::vector<size_t> candidates;
  for (size_t i = 0; i < g_.inputs.size(); ++i) {
    const auto& in = g_.inputs[i];
    if (in.dtype == DType::kBool || consumed_by_leaf_op(in.name)) continue;
    candidates.push_back(i);
  }
  if (candidates.empty()) return false;
  const Input target = g_.inputs[candidates[pick(candidates.size())]];
  for (double scale : {1.0, 0.5, 0.25, 0.1}) {
    const size_t before = g_.inputs.size();
    auto n = backward(op, target, scale);
    if (n && n->shape == target.shape && n->dtype == target.dtype &&
        contains({target.low, target.high}, last_range_) &&
        !underflows_with(target.name, last_range_)) {
      replace_leaf(target.name, std::move(*n));
      refresh_ranges();
      return true;
    }
    rollback(before);
  }
  return false;
}

bool Draft::underflows_with(const std::string& name, Interval r) const {
  Graph copy = g_;
  for (auto& in : copy.inputs) {
    if (in.name == name) {
      in.low = r.lo;
      in.high = r.hi;
    }
  }
  if (copy.outputs.empty() && !copy.nodes.empty()) copy.outputs = {copy.nodes.back().name};
  Values values;
  if (check(copy, &values)) return true;
  return std::any_of(copy.nodes.begin(), copy.nodes.end(), [&](const Node& n) {
    const auto& v = values.at(n.name);
    return is_float(v.dtype) &&
           std::max(std::abs(v.range.lo), std::abs(v.range.hi)) < smallest_normal(v.dtype);
  });
}

void Draft::refresh_ranges() {
  Graph copy = g_;
  if (copy.outputs.empty() && !copy.nodes.empty()) copy.outputs = {copy.nodes.back().name};
  Values values;
  if (check(copy, &values)) return;
  for (auto& [name, v] : values_) {
    const auto it = values.find(name);
    if (it != values.end()) v.range = it->second.range;
  }
}

bool Draft::consumed_by_leaf_op(const std::string& name) const {
  for (const auto& n : g_.nodes) {
    const OpSpec* spec = find_op(n.op);
    const bool leafy =
        spec->leaf_operands || (n.op == "cast" && n.attrs.value("to", "") == "int32");
    if (leafy && std::find(n.inputs.begin(), n.inputs.end(), name) != n.inputs.end()) return true;
  }
  return false;
}

Interval Draft::leaf_range(const std::string& op, size_t slot, DType d, double scale) {
  Interval r = preferred(op, slot, d);
  if (r.lo < 0 && d != DType::kInt32) r = {r.lo * scale, r.hi * scale};
  return r;
}

std::optional<Node> Draft::backward(const std::string& op, const Input& t, double scale) {
  return elementwise(op) ? backward_elementwise(op, t, scale) : backward_structured(op, t, scale);
}

std::optional<Node> Draft::backward_elementwise(const std::string& op, const Input& t,
                                                double scale) {
  const DType d = t.dtype;
  const Shape& s = t.shape;
  auto range = [&](size_t slot) { return leaf_range(op, slot, d, scale); };
  if (is_unary(op)) {
    if (!dtype_fits(op, d)) return std::nullopt;
    return make(op, {leaf(s, d, range(0))},
                op == "leaky_relu" ? json{{"alpha", 0.1}} : json::object());
  }
  if (is_binary(op)) {
    if (!dtype_fits(op, d)) return std::nullopt;
    return make(op, {leaf(s, d, range(0)), leaf(broadcast_partner(s), d, range(1))},
                json::object());
  }
  if (op == "cast" && is_float(d)) {
    DType from = d == DType::kFloat32 ? DType::kFloat16 : DType::kFloat32;
    return make(op, {leaf(s, from, range(0))}, {{"to", to_string(d)}});
  }
  if (op == "where") {
    return make(op,
                {leaf(broadcast_partner(s), DType::kBool, {0, 1}), leaf(s, d, range(1)),
                 leaf(broadcast_partner(s), d, range(2))},
                json::object());
  }
  if (op == "clamp") {
    if (d == DType::kInt32) return make(op, {leaf(s, d, range(0))}, {{"min", -4}, {"max", 4}});
    return make(op, {leaf(s, d, range(0))}, {{"min", -0.5 * scale}, {"max", 0.5 * scale}});
  }
  return std::nullopt;
}

std::optional<Node> Draft::backward_structured(const std::string& op, const Input& t,
                                               double scale) {
  const DType d = t.dtype;
  const Shape& s = t.shape;
  auto range = [&](size_t slot) { return leaf_range(op, slot, d, scale); };
  if (op == "matmul" && is_float(d) && s.size() >= 2) {
    const int64_t k = between(1, 8);
    Shape a = s;
    a.back() = k;
    Shape b = s;
    b[b.size() - 2] = k;
    return make(op, {leaf(a, d, range(0)), leaf(b, d, range(1))}, json::object());
  }
  if ((op == "softmax" || op == "log_softmax") && is_float(d)) {
    return make(op, {leaf(s, d, range(0))},
                {{"axis", between(0, static_cast<int64_t>(s.size()) - 1)}});
  }
  if (op == "layer_norm" && is_float(d)) {
    return make(op, {leaf(s, d, range(0))}, {{"normalized_dims", 1}, {"eps", 1e-5}});
  }
  if (op.rfind("reduce_", 0) == 0) {
    std::vector<int64_t> ones;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == 1) ones.push_back(static_cast<int64_t>(i));
    }
    if (ones.empty()) return std::nullopt;
    const int64_t axis = ones[pick(ones.size())];
    Shape big = s;
    big[static_cast<size_t>(axis)] = between(2, 6);
    return make(op, {leaf(big, d, range(0))}, {{"axes", {axis}}, {"keepdims", true}});
  }
  return backward_shape(op, t, scale);
}

std::optional<Node> Draft::backward_shape(const std::string& op, const Input& t, double scale) {
  const DType d = t.dtype;
  const Shape& s = t.shape;
  auto range = [&](size_t slot) { return leaf_range(op, slot, d, scale); };
  if (op == "reshape") {
    return make(op, {leaf(factor(numel(s), static_cast<int>(between(1, 4))), d, range(0))},
                {{"shape", s}});
  }
  if (op == "transpose" && s.size() >= 2) {
    std::vector<int64_t> perm(s.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng_);
    Shape in(s.size());
    for (size_t i = 0; i < s.size(); ++i) in[static_cast<size_t>(perm[i])] = s[i];
    return make(op, {leaf(in, d, range(0))}, {{"perm", perm}});
  }
  if (op == "slice") {
    const auto axis = static_cast<size_t>(between(0, static_cast<int64_t>(s.size()) - 1));
    const int64_t extra = between(1, 3);
    Shape in = s;
    in[axis] += extra;
    const int64_t start = between(0, extra);
    return make(op, {leaf(in, d, range(0))},
                {{"axis", axis}, {"start", start}, {"end", start + s[axis]}, {"step", 1}});
  }
  if (op == "pad") {
    json pads = json::array();
    Shape in = s;
    for (size_t i = 0; i < s.size(); ++i) {
      const int64_t before = s[i] > 1 ? between(0, 1) : 0;
      const int64_t after = s[i] - before > 1 ? between(0, 1) : 0;
      in[i] -= before + after;
      pads.push_back({before, after});
    }
    return make(op, {leaf(in, d, range(0))}, {{"pads", pads}});
  }
  if (op == "squeeze" && s.size() <= 4) {
    const int64_t axis = between(0, static_cast<int64_t>(s.size()));
    Shape in = s;
    in.insert(in.begin() + axis, 1);
    return make(op, {leaf(in, d, range(0))}, {{"axis", axis}});
  }
  if (op == "unsqueeze" && s.size() >= 2) {
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != 1) continue;
      Shape in = s;
      in.erase(in.begin() + static_cast<int64_t>(i));
      return make(op, {leaf(in, d, range(0))}, {{"axis", static_cast<int64_t>(i)}});
    }
    return std::nullopt;
  }
  if (op == "expand") {
    Shape in = s;
    for (auto& dim : in) {
      if (dim > 1 && chance(0.5)) dim = 1;
    }
    return make(op, {leaf(in, d, range(0))}, {{"shape", s}});
  }
  if (op == "concat") {
    std::vector<size_t> axes;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] >= 2) axes.push_back(i);
    }
    if (axes.empty()) return std::nullopt;
    const size_t axis = axes[pick(axes.size())];
    const int64_t first = between(1, s[axis] - 1);
    Shape a = s;
    Shape b = s;
    a[axis] = first;
    b[axis] = s[axis] - first;
    return make(op, {leaf(a, d, range(0)), leaf(b, d, range(1))},
                {{"axis", static_cast<int64_t>(axis)}});
  }
  return std::nullopt;  // conv, pool, linear, batch_norm, comparisons: forward only
}

bool Draft::dtype_fits(const std::string& op, DType d) {
  const OpSpec* spec = find_op(op);
  return is_float(d) || (d == DType::kInt32 && spec->dtypes != Dtypes::kFloat);
}

void Draft::replace_leaf(const std::string& leaf_name, Node n) {
  const std::string name = n.name;
  values_[name] = {n.shape, n.dtype, last_range_, false};
  for (auto& m : g_.nodes) {
    std::replace(m.inputs.begin(), m.inputs.end(), leaf_name, name);
  }
  if (consumed_.erase(leaf_name) != 0) consumed_.insert(name);
  g_.inputs.erase(std::remove_if(g_.inputs.begin(), g_.inputs.end(),
                                 [&](const Input& in) { return in.name == leaf_name; }),
                  g_.inputs.end());
  values_.erase(leaf_name);
  g_.nodes.insert(g_.nodes.begin(), std::move(n));
}

}  // namespace mudjack::gen::detail
