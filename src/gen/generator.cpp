#include "gen/generator.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gen/ops.hpp"
#include "util/error.hpp"

namespace mudjack::gen {
namespace {

using nlohmann::json;

// A leaf range an op's operand prefers: inside its domain with room to spare.
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

int float_width(DType d) {
  return d == DType::kFloat16 ? 16 : d == DType::kFloat32 ? 32 : d == DType::kFloat64 ? 64 : 0;
}

bool contains(Interval outer, Interval inner) {
  return inner.lo >= outer.lo && inner.hi <= outer.hi;
}

class Build {
 public:
  Build(const GenOptions& o, Solver& solver, std::map<std::string, int64_t>& used, int64_t seed)
      : o_(o), solver_(solver), used_(used), rng_(static_cast<uint64_t>(seed)) {
    g_.seed = seed;
    g_.dtype = o.dtypes[pick(o.dtypes.size())];
  }

  Graph run() {
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

  std::string choose_op() {
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

  // --- the graph under construction ---------------------------------------
  std::string fresh(char prefix) { return std::string(1, prefix) + std::to_string(next_++); }

  std::string leaf(const Shape& shape, DType dtype, Interval range) {
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

  // Type, interval and domain of op over `inputs`; the node (not yet placed).
  std::optional<Node> make(const std::string& op, const std::vector<std::string>& inputs,
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

  bool place(std::optional<Node> n) {
    if (!n) return false;
    values_[n->name] = {n->shape, n->dtype, last_range_, false};
    consumed_.insert(n->inputs.begin(), n->inputs.end());
    g_.nodes.push_back(std::move(*n));
    return true;
  }

  // Leaves made during a failed attempt are removed again.
  void rollback(size_t inputs_before) {
    while (g_.inputs.size() > inputs_before) {
      values_.erase(g_.inputs.back().name);
      g_.inputs.pop_back();
    }
  }

  Shape random_shape(int rank) {
    Shape s;
    for (int i = 0; i < rank; ++i) s.push_back(between(1, rank >= 4 ? 6 : 8));
    return s;
  }

  // An existing value for `op`'s operand `slot` of dtype `d` (and rank in
  // [min_rank, max_rank]) whose interval is in the op's domain, preferring
  // computed values; or a new leaf.
  std::string operand(const std::string& op, size_t slot, DType d, int min_rank, int max_rank,
                      bool leaves_only = false) {
    std::vector<std::string> fit;
    for (const auto& [name, v] : values_) {
      if (v.dtype != d || static_cast<int>(v.shape.size()) < min_rank ||
          static_cast<int>(v.shape.size()) > max_rank || (leaves_only && !v.leaf)) {
        continue;
      }
      if (slot == 0 && is_unary(op) && domain_fault(op, {v.range})) continue;
      if (op == "pow" && slot == 0 && v.range.lo < 0.1) continue;
      if (op == "div" && slot == 0) { /* any dividend */
      }
      fit.push_back(name);
    }
    if (!fit.empty() && chance(0.85)) {
      // computed values nothing consumes yet first, then computed values:
      // deeper graphs
      std::vector<std::string> frontier;
      std::vector<std::string> computed;
      for (const auto& n : fit) {
        if (values_.at(n).leaf) continue;
        computed.push_back(n);
        if (consumed_.count(n) == 0) frontier.push_back(n);
      }
      if (!frontier.empty() && chance(0.7)) return frontier[pick(frontier.size())];
      const auto& from = !computed.empty() && chance(0.8) ? computed : fit;
      return from[pick(from.size())];
    }
    const int rank = static_cast<int>(between(min_rank, std::min(max_rank, 4)));
    return leaf(random_shape(rank), d, preferred(op, slot, d));
  }

  // A shape that broadcasts against `s`: some dims set to 1, maybe fewer leading dims.
  Shape broadcast_partner(const Shape& s) {
    Shape out = s;
    for (auto& d : out) {
      if (chance(0.3)) d = 1;
    }
    if (out.size() > 1 && chance(0.25)) out.erase(out.begin());
    return out;
  }

  // An existing value of dtype d whose shape broadcasts with s and whose
  // interval passes `ok`, or a new leaf in `range`.
  template <typename Ok>
  std::string partner(const Shape& s, DType d, Interval range, Ok ok, bool leaves_only = false) {
    std::vector<std::string> fit;
    for (const auto& [name, v] : values_) {
      if (v.dtype != d || (leaves_only && !v.leaf) || !ok(v.range)) continue;
      auto t = infer("add",
                     {{s, d == DType::kBool ? DType::kInt32 : d},
                      {v.shape, d == DType::kBool ? DType::kInt32 : d}},
                     json::object());
      if (std::holds_alternative<Type>(t) && std::get<Type>(t).shape == s) fit.push_back(name);
    }
    if (!fit.empty() && chance(0.5)) return fit[pick(fit.size())];
    return leaf(broadcast_partner(s), d, range);
  }

  // --- forward insertion ----------------------------------------------------
  bool insert_forward(const std::string& op) {
    const size_t before = g_.inputs.size();
    const bool ok = place(forward(op));
    if (!ok) rollback(before);
    return ok;
  }

  static bool elementwise(const std::string& op) {
    return is_unary(op) || is_binary(op) || op == "cast" || op == "greater" || op == "less" ||
           op == "where" || op == "clamp";
  }

  std::optional<Node> forward(const std::string& op) {
    return elementwise(op) ? forward_elementwise(op) : forward_structured(op);
  }

  // unary, cast, binary, comparisons, where, clamp
  std::optional<Node> forward_elementwise(const std::string& op) {
    const DType d = g_.dtype;
    if (is_unary(op)) {
      // Draws in a fixed order (the attribute first, then the operand): the
      // order of a call's arguments is unspecified, and a graph must not
      // depend on the compiler.
      const json attrs = op == "leaky_relu"
                             ? json{{"alpha", std::round(uniform(0.01, 0.5) * 100) / 100}}
                             : json::object();
      const std::string x = operand(op, 0, d, 1, 4);
      return make(op, {x}, attrs);
    }
    if (op == "cast") {
      const auto x = operand(op, 0, d, 1, 4);
      // Only down (or to int32 from a graph input): the float64 reference
      // rounds at casts alone, so a value computed in float16 and cast up
      // to float32 would be judged at float32's precision, which its float16
      // arithmetic never had.
      std::vector<DType> to;
      for (DType t : {DType::kFloat16, DType::kFloat32, DType::kFloat64}) {
        if (t != d && is_float(d) && float_width(t) < float_width(d)) to.push_back(t);
      }
      if (values_.at(x).leaf) to.push_back(DType::kInt32);
      if (to.empty()) return std::nullopt;
      return make(op, {x}, {{"to", to_string(to[pick(to.size())])}});
    }
    if (is_binary(op)) {
      const auto a = operand(op, 0, d, 1, 4);
      const Shape s = values_.at(a).shape;
      const Interval range = preferred(op, 1, d);
      const auto b = partner(s, d, range, [&](Interval r) {
        return !domain_fault(op, {values_.at(a).range, r});
      });
      return chance(0.5) || op == "div" || op == "pow" ? make(op, {a, b}, json::object())
                                                       : make(op, {b, a}, json::object());
    }
    if (op == "greater" || op == "less") {
      const auto a = operand(op, 0, d, 1, 4, true);
      const auto b = partner(
          values_.at(a).shape, d, preferred(op, 1, d), [](Interval) { return true; }, true);
      return make(op, {a, b}, json::object());
    }
    if (op == "where") {
      const auto a = operand(op, 1, d, 1, 4);
      const Shape s = values_.at(a).shape;
      const auto b = partner(s, d, preferred(op, 2, d), [](Interval) { return true; });
      const auto c = partner(s, DType::kBool, {0, 1}, [](Interval) { return true; });
      return make(op, {c, a, b}, json::object());
    }
    if (op == "clamp") {
      const auto x = operand(op, 0, d, 1, 4);
      const Interval r = values_.at(x).range;
      double lo = uniform(r.lo, r.hi);
      double hi = uniform(r.lo, r.hi);
      if (lo > hi) std::swap(lo, hi);
      if (d == DType::kInt32) {
        lo = std::floor(lo);
        hi = std::max(std::ceil(hi), lo + 1);
        return make(op, {x},
                    {{"min", static_cast<int64_t>(lo)}, {"max", static_cast<int64_t>(hi)}});
      }
      lo = std::round(lo * 1000) / 1000;
      hi = std::max(std::round(hi * 1000) / 1000, lo + 0.001);
      return make(op, {x}, {{"min", lo}, {"max", hi}});
    }
    return std::nullopt;
  }

  // contractions, convolutions, pooling, reductions, normalisations, shape ops
  std::optional<Node> forward_structured(const std::string& op) {
    const DType d = g_.dtype;
    const DType fd = is_float(d) ? d : DType::kFloat32;
    if (op == "matmul") {
      const auto a = operand(op, 0, fd, 2, 4);
      const Shape s = values_.at(a).shape;
      Problem p;
      auto n = p.var("n", 1, 16);
      p.require(n * Expr(numel(s) / s.back()) <= Expr(o_.max_numel));
      auto v = solver_.solve(p, rng_);
      if (!v) return std::nullopt;
      Shape bs = s;
      bs[bs.size() - 2] = s.back();
      bs.back() = (*v)[0];
      return make(op, {a, leaf(bs, fd, {-1, 1})}, json::object());
    }
    if (op == "linear") {
      const auto x = operand(op, 0, fd, 1, 4);
      const Shape s = values_.at(x).shape;
      const int64_t n = between(1, 16);
      return make(op, {x, leaf({n, s.back()}, fd, {-1, 1}), leaf({n}, fd, {-1, 1})},
                  json::object());
    }
    if (op == "conv1d" || op == "conv2d") return conv(op, fd);
    if (op == "max_pool2d" || op == "avg_pool2d") return pool(op, fd);
    if (op.rfind("reduce_", 0) == 0) {
      const auto x = operand(op, 0, d, 1, 4);
      const auto rank = static_cast<int64_t>(values_.at(x).shape.size());
      std::vector<int64_t> axes;
      for (int64_t i = 0; i < rank; ++i) {
        if (chance(0.4)) axes.push_back(i);
      }
      if (axes.empty()) axes.push_back(between(0, rank - 1));
      const bool keep = static_cast<int64_t>(axes.size()) == rank || chance(0.5);
      return make(op, {x}, {{"axes", axes}, {"keepdims", keep}});
    }
    if (op == "softmax" || op == "log_softmax") {
      const auto x = operand(op, 0, fd, 1, 4);
      return make(op, {x},
                  {{"axis", between(0, static_cast<int64_t>(values_.at(x).shape.size()) - 1)}});
    }
    if (op == "layer_norm") {
      const auto x = operand(op, 0, fd, 1, 4);
      const auto rank = static_cast<int64_t>(values_.at(x).shape.size());
      return make(op, {x},
                  {{"normalized_dims", between(1, std::min<int64_t>(rank, 2))}, {"eps", 1e-5}});
    }
    if (op == "batch_norm") {
      const auto x = operand(op, 0, fd, 2, 4);
      const Shape c = {values_.at(x).shape[1]};
      return make(op,
                  {x, leaf(c, fd, {-1, 1}), leaf(c, fd, {0.5, 2}), leaf(c, fd, {0.5, 1.5}),
                   leaf(c, fd, {-1, 1})},
                  {{"eps", 1e-5}});
    }
    return shape_op(op, d);
  }

  std::optional<Node> conv(const std::string& op, DType d) {
    const size_t spatial = op == "conv1d" ? 1 : 2;
    std::string x = operand(op, 0, d, static_cast<int>(spatial) + 2, static_cast<int>(spatial) + 2);
    const Shape s = values_.at(x).shape;
    Problem p;
    const Expr c(s[1]);
    auto out = p.var("out_channels", 1, 16);
    auto groups = p.var("groups", 1, std::min<int64_t>(s[1], 4));
    p.require(c % groups == Expr(0));
    p.require(out % groups == Expr(0));
    std::vector<Expr> k;
    std::vector<Expr> st;
    std::vector<Expr> pad;
    std::vector<Expr> dil;
    int64_t batch_area = s[0];
    Expr area(1);
    for (size_t i = 0; i < spatial; ++i) {
      const Expr n(s[2 + i]);
      k.push_back(p.var("kernel", 1, 5));
      st.push_back(p.var("stride", 1, 3));
      pad.push_back(p.var("padding", 0, 2));
      dil.push_back(p.var("dilation", 1, 2));
      const Expr span = n + Expr(2) * pad[i] - dil[i] * (k[i] - Expr(1)) - Expr(1);
      p.require(span >= Expr(0));
      area = area * (span / st[i] + Expr(1));
    }
    p.require(area * out * Expr(batch_area) <= Expr(o_.max_numel));
    auto v = solver_.solve(p, rng_);
    if (!v) return std::nullopt;
    const auto val = [&](const Expr& e) { return *e.eval(*v); };
    const int64_t o = val(out);
    const int64_t g = val(groups);
    Shape ws = {o, s[1] / g};
    json attrs = {{"groups", g}};
    if (spatial == 1) {
      ws.push_back(val(k[0]));
      attrs["stride"] = val(st[0]);
      attrs["padding"] = val(pad[0]);
      attrs["dilation"] = val(dil[0]);
    } else {
      ws.push_back(val(k[0]));
      ws.push_back(val(k[1]));
      attrs["stride"] = {val(st[0]), val(st[1])};
      attrs["padding"] = {val(pad[0]), val(pad[1])};
      attrs["dilation"] = {val(dil[0]), val(dil[1])};
    }
    return make(op, {x, leaf(ws, d, {-1, 1}), leaf({o}, d, {-1, 1})}, attrs);
  }

  std::optional<Node> pool(const std::string& op, DType d) {
    std::string x = operand(op, 0, d, 4, 4);
    const Shape s = values_.at(x).shape;
    Problem p;
    std::vector<Expr> k;
    std::vector<Expr> st;
    std::vector<Expr> pad;
    for (size_t i = 0; i < 2; ++i) {
      const Expr n(s[2 + i]);
      k.push_back(p.var("kernel", 1, 4));
      st.push_back(p.var("stride", 1, 3));
      pad.push_back(p.var("padding", 0, op == "max_pool2d" ? 2 : 0));
      p.require(Expr(2) * pad[i] <= k[i]);
      p.require(n + Expr(2) * pad[i] - k[i] >= Expr(0));
    }
    auto v = solver_.solve(p, rng_);
    if (!v) return std::nullopt;
    const auto val = [&](const Expr& e) { return *e.eval(*v); };
    json attrs = {{"kernel", {val(k[0]), val(k[1])}}, {"stride", {val(st[0]), val(st[1])}}};
    if (op == "max_pool2d") attrs["padding"] = {val(pad[0]), val(pad[1])};
    return make(op, {x}, attrs);
  }

  // n split into `rank` random factors
  Shape factor(int64_t n, int rank) {
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

  std::optional<Node> shape_op(const std::string& op, DType d) {
    const auto x = operand(op, 0, d, 1, op == "unsqueeze" ? 3 : 4);
    const Shape s = values_.at(x).shape;
    const auto rank = static_cast<int64_t>(s.size());
    if (op == "reshape") {
      return make(op, {x}, {{"shape", factor(numel(s), static_cast<int>(between(1, 4)))}});
    }
    if (op == "transpose") {
      std::vector<int64_t> perm(s.size());
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng_);
      return make(op, {x}, {{"perm", perm}});
    }
    if (op == "concat") {
      const int64_t axis = between(0, rank - 1);
      std::vector<std::string> parts = {x};
      const int more = chance(0.3) ? 2 : 1;
      for (int i = 0; i < more; ++i) {
        std::vector<std::string> fit;
        for (const auto& [name, v] : values_) {
          if (name == x || v.dtype != d || v.shape.size() != s.size()) continue;
          bool same = true;
          for (int64_t a = 0; a < rank; ++a) {
            if (a != axis && v.shape[static_cast<size_t>(a)] != s[static_cast<size_t>(a)])
              same = false;
          }
          if (same) fit.push_back(name);
        }
        if (!fit.empty() && chance(0.5)) {
          parts.push_back(fit[pick(fit.size())]);
        } else {
          Shape t = s;
          t[static_cast<size_t>(axis)] = between(1, 6);
          parts.push_back(leaf(t, d, preferred(op, 1, d)));
        }
      }
      return make(op, parts, {{"axis", axis}});
    }
    if (op == "slice") {
      const int64_t axis = between(0, rank - 1);
      Problem p;
      const Expr dim(s[static_cast<size_t>(axis)]);
      auto start = p.var("start", 0, s[static_cast<size_t>(axis)] - 1);
      auto end = p.var("end", 1, s[static_cast<size_t>(axis)]);
      auto step = p.var("step", 1, 3);
      p.require(start < end);
      auto v = solver_.solve(p, rng_);
      if (!v) return std::nullopt;
      return make(op, {x},
                  {{"axis", axis}, {"start", (*v)[0]}, {"end", (*v)[1]}, {"step", (*v)[2]}});
    }
    if (op == "pad") {
      json pads = json::array();
      for (int64_t i = 0; i < rank; ++i) {
        pads.push_back(chance(0.4) ? json{between(0, 2), between(0, 2)} : json{0, 0});
      }
      return make(op, {x}, {{"pads", pads}});
    }
    if (op == "unsqueeze") return make(op, {x}, {{"axis", between(0, rank)}});
    if (op == "squeeze") {
      std::vector<int64_t> ones;
      for (int64_t i = 0; i < rank; ++i) {
        if (s[static_cast<size_t>(i)] == 1) ones.push_back(i);
      }
      if (ones.empty()) return std::nullopt;
      return make(op, {x}, {{"axis", ones[pick(ones.size())]}});
    }
    // expand
    Shape t = s;
    bool grew = false;
    for (auto& dim : t) {
      if (dim == 1 && chance(0.7)) {
        dim = between(2, 6);
        grew = true;
      }
    }
    if (!grew) return std::nullopt;
    return make(op, {x}, {{"shape", t}});
  }

  // --- backward insertion ---------------------------------------------------
  // A leaf L replaced by op(new leaves) whose interval lies inside L's.
  bool insert_backward(const std::string& op) {
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

  // Whether narrowing leaf `name` to `r` (a backward insertion) leaves a
  // floating value downstream that can only be 0 or subnormal (relu of what
  // became non-positive): the graph re-checked with the leaf's new range.
  bool underflows_with(const std::string& name, Interval r) const {
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

  // Every value's interval propagated again: a backward insertion narrows
  // a leaf, and what is computed from it narrows too (a later op placed on
  // it must see that, not the leaf's old range).
  void refresh_ranges() {
    Graph copy = g_;
    if (copy.outputs.empty() && !copy.nodes.empty()) copy.outputs = {copy.nodes.back().name};
    Values values;
    if (check(copy, &values)) return;
    for (auto& [name, v] : values_) {
      const auto it = values.find(name);
      if (it != values.end()) v.range = it->second.range;
    }
  }

  bool consumed_by_leaf_op(const std::string& name) const {
    for (const auto& n : g_.nodes) {
      const OpSpec* spec = find_op(n.op);
      const bool leafy =
          spec->leaf_operands || (n.op == "cast" && n.attrs.value("to", "") == "int32");
      if (leafy && std::find(n.inputs.begin(), n.inputs.end(), name) != n.inputs.end()) return true;
    }
    return false;
  }

  // The range of a new leaf for operand `slot` of `op`: the op's preferred
  // range, scaled down by `scale` when it is symmetric.
  static Interval leaf_range(const std::string& op, size_t slot, DType d, double scale) {
    Interval r = preferred(op, slot, d);
    if (r.lo < 0 && d != DType::kInt32) r = {r.lo * scale, r.hi * scale};
    return r;
  }

  std::optional<Node> backward(const std::string& op, const Input& t, double scale) {
    return elementwise(op) ? backward_elementwise(op, t, scale) : backward_structured(op, t, scale);
  }

  // A leaf's new producer, leaves in the op's preferred range (scaled down
  // by `scale` when it is symmetric): unary, binary, cast, where, clamp.
  std::optional<Node> backward_elementwise(const std::string& op, const Input& t, double scale) {
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

  // matmul, softmax, layer_norm, reductions and shape ops; conv, pool,
  // linear, batch_norm and comparisons grow forward only.
  std::optional<Node> backward_structured(const std::string& op, const Input& t, double scale) {
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

  // reshape, transpose, slice, pad, squeeze, unsqueeze, expand, concat: a
  // leaf of another shape whose values the op moves into the target's.
  std::optional<Node> backward_shape(const std::string& op, const Input& t, double scale) {
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

  static bool dtype_fits(const std::string& op, DType d) {
    const OpSpec* spec = find_op(op);
    return is_float(d) || (d == DType::kInt32 && spec->dtypes != Dtypes::kFloat);
  }

  void replace_leaf(const std::string& leaf_name, Node n) {
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

  // Outputs: every node nothing consumes; leaves nothing consumes dropped.
  void finish() {
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

}  // namespace

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
    Graph g = Build(options_, *solver_, used, seed * 7919 + attempt).run();
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
