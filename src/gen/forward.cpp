// Forward insertion (src/gen/draft.hpp): an op over values the graph has,
// new leaf inputs where it needs more.

#include "gen/draft.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gen/ops.hpp"

namespace mudjack::gen::detail {
namespace {

using nlohmann::json;

int float_width(DType d) {
  return d == DType::kFloat16 ? 16 : d == DType::kFloat32 ? 32 : d == DType::kFloat64 ? 64 : 0;
}

}  // namespace

Shape Draft::random_shape(int rank) {
  Shape s;
  for (int i = 0; i < rank; ++i) s.push_back(between(1, rank >= 4 ? 6 : 8));
  return s;
}

std::string Draft::operand(const std::string& op, size_t slot, DType d, int min_rank, int max_rank,
                           bool leaves_only) {
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

template <typename Ok>
std::string Draft::partner(const Shape& s, DType d, Interval range, Ok ok, bool leaves_only) {
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

bool Draft::insert_forward(const std::string& op) {
  const size_t before = g_.inputs.size();
  const bool ok = place(forward(op));
  if (!ok) rollback(before);
  return ok;
}

std::optional<Node> Draft::forward(const std::string& op) {
  return elementwise(op) ? forward_elementwise(op) : forward_structured(op);
}

std::optional<Node> Draft::forward_elementwise(const std::string& op) {
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
      return make(op, {x}, {{"min", static_cast<int64_t>(lo)}, {"max", static_cast<int64_t>(hi)}});
    }
    lo = std::round(lo * 1000) / 1000;
    hi = std::max(std::round(hi * 1000) / 1000, lo + 0.001);
    return make(op, {x}, {{"min", lo}, {"max", hi}});
  }
  return std::nullopt;
}

std::optional<Node> Draft::forward_structured(const std::string& op) {
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
    return make(op, {x, leaf({n, s.back()}, fd, {-1, 1}), leaf({n}, fd, {-1, 1})}, json::object());
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

std::optional<Node> Draft::conv(const std::string& op, DType d) {
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

std::optional<Node> Draft::pool(const std::string& op, DType d) {
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

std::optional<Node> Draft::shape_op(const std::string& op, DType d) {
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
    return make(op, {x}, {{"axis", axis}, {"start", (*v)[0]}, {"end", (*v)[1]}, {"step", (*v)[2]}});
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

}  // namespace mudjack::gen::detail
