// The shared draft of src/gen/draft.hpp: randomness, leaves, placing a node,
// rollback and the outputs, used by both insertions.

#include "gen/draft.hpp"

#include <algorithm>
#include <cmath>

#include "gen/ops.hpp"

namespace mudjack::gen::detail {

using nlohmann::json;

Interval preferred(std::string_view op, size_t slot, DType d) {
  if (d == DType::kInt32) return {-8, 8};
  if (d == DType::kBool) return {0, 1};
  if (op == "log" || op == "rsqrt" || op == "reciprocal" || (op == "pow" && slot == 0) ||
      (op == "div" && slot == 1) || (op == "batch_norm" && slot == 2)) {
    return {0.5, 2};
  }
  if (op == "sqrt") return {0, 2};
  if (op == "batch_norm" && slot == 3) return {0.5, 1.5};
  return {-2, 2};
}

Draft::Draft(const GenOptions& o, Solver& solver, std::map<std::string, int64_t>& used,
             int64_t seed)
    : o_(o), solver_(solver), used_(used), rng_(static_cast<uint64_t>(seed)) {
  g_.seed = seed;
  g_.dtype = o.dtypes[pick(o.dtypes.size())];
}

Graph Draft::run() {
  int failures = 0;
  while (static_cast<int>(g_.nodes.size()) < o_.nodes && failures < 64 * o_.nodes) {
    const std::string op = choose_op();
    const bool backward = !g_.inputs.empty() && !g_.nodes.empty() && chance(o_.backward_share);
    const bool ok = backward ? insert_backward(op) : insert_forward(op);
    if (ok) {
      ++used_[op];
    } else {
      ++failures;
    }
  }
  finish();
  return std::move(g_);
}

std::string Draft::choose_op() {
  std::vector<std::string> allowed;
  std::vector<double> weights;
  for (const auto& spec : op_specs()) {
    const std::string name(spec.name);
    if (!o_.ops.empty() && std::find(o_.ops.begin(), o_.ops.end(), name) == o_.ops.end()) {
      continue;
    }
    if (g_.dtype == DType::kInt32 && (spec.dtypes == Dtypes::kFloat || name == "cast")) continue;
    allowed.push_back(name);
    weights.push_back(1.0 / (1.0 + static_cast<double>(used_[name])));
  }
  std::discrete_distribution<size_t> d(weights.begin(), weights.end());
  return allowed[d(rng_)];
}

std::string Draft::leaf(const Shape& shape, DType dtype, Interval range) {
  Input in;
  in.name = fresh('x');
  in.shape = shape;
  in.dtype = dtype;
  in.low = range.lo;
  in.high = range.hi;
  values_[in.name] = {shape, dtype, range, true};
  g_.inputs.push_back(in);
  return in.name;
}

std::optional<Node> Draft::make(const std::string& op, const std::vector<std::string>& inputs,
                                json attrs) {
  std::vector<Type> in;
  std::vector<Interval> ranges;
  for (const auto& n : inputs) {
    const auto& v = values_.at(n);
    in.push_back({v.shape, v.dtype});
    ranges.push_back(v.range);
  }
  auto t = infer(op, in, attrs);
  if (std::holds_alternative<std::string>(t)) return std::nullopt;
  const Type& type = std::get<Type>(t);
  if (numel(type.shape) > o_.max_numel || domain_fault(op, ranges)) return std::nullopt;
  const Interval r = propagate(op, ranges, in, attrs);
  const double magnitude = std::max(std::abs(r.lo), std::abs(r.hi));
  // nothing beyond the cap, and no floating value that can only be 0 or
  // subnormal: its reference would be at the dtype's noise floor
  if (!std::isfinite(r.lo) || !std::isfinite(r.hi) || magnitude > magnitude_cap(type.dtype) ||
      (is_float(type.dtype) && magnitude < smallest_normal(type.dtype))) {
    return std::nullopt;
  }
  Node n;
  n.name = fresh('v');
  n.op = op;
  n.inputs = inputs;
  n.attrs = std::move(attrs);
  n.shape = type.shape;
  n.dtype = type.dtype;
  last_range_ = r;
  return n;
}

bool Draft::place(std::optional<Node> n) {
  if (!n) return false;
  values_[n->name] = {n->shape, n->dtype, last_range_, false};
  consumed_.insert(n->inputs.begin(), n->inputs.end());
  g_.nodes.push_back(std::move(*n));
  return true;
}

void Draft::rollback(size_t inputs_before) {
  while (g_.inputs.size() > inputs_before) {
    values_.erase(g_.inputs.back().name);
    g_.inputs.pop_back();
  }
}

Shape Draft::broadcast_partner(const Shape& s) {
  Shape out = s;
  for (auto& d : out) {
    if (chance(0.3)) d = 1;
  }
  if (out.size() > 1 && chance(0.25)) out.erase(out.begin());
  return out;
}

bool Draft::elementwise(const std::string& op) {
  return is_unary(op) || is_binary(op) || op == "cast" || op == "greater" || op == "less" ||
         op == "where" || op == "clamp";
}

Shape Draft::factor(int64_t n, int rank) {
  std::vector<int64_t> primes;
  for (int64_t f = 2; f * f <= n; ++f) {
    while (n % f == 0) {
      primes.push_back(f);
      n /= f;
    }
  }
  if (n > 1) primes.push_back(n);
  Shape s(static_cast<size_t>(rank), 1);
  for (auto f : primes) s[pick(s.size())] *= f;
  return s;
}

void Draft::finish() {
  std::set<std::string> consumed;
  for (const auto& n : g_.nodes) consumed.insert(n.inputs.begin(), n.inputs.end());
  g_.inputs.erase(std::remove_if(g_.inputs.begin(), g_.inputs.end(),
                                 [&](const Input& in) { return consumed.count(in.name) == 0; }),
                  g_.inputs.end());
  g_.outputs.clear();
  for (const auto& n : g_.nodes) {
    if (consumed.count(n.name) == 0) g_.outputs.push_back(n.name);
  }
}

}  // namespace mudjack::gen::detail
