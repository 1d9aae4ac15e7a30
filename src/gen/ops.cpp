#include "gen/ops.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "util/number.hpp"

namespace mudjack::gen {
namespace {

using nlohmann::json;
using Result = std::variant<Type, std::string>;

const std::set<std::string_view> kUnary = {
    "neg", "abs",  "square",  "exp",  "log",        "sqrt", "rsqrt",    "reciprocal", "sin",
    "cos", "tanh", "sigmoid", "relu", "leaky_relu", "elu",  "softplus", "gelu"};
const std::set<std::string_view> kUnaryInt = {"neg", "abs", "square"};
const std::set<std::string_view> kBinary = {"add",     "sub",     "mul", "div",
                                            "maximum", "minimum", "pow"};
const std::set<std::string_view> kBinaryInt = {"add", "sub", "mul", "maximum", "minimum"};

std::vector<OpSpec> make_specs() {
  std::vector<OpSpec> s;
  for (auto op : kUnary) {
    s.push_back({op, 1, 1, kUnaryInt.count(op) != 0 ? Dtypes::kFloatInt : Dtypes::kFloat});
  }
  s.push_back({"cast", 1, 1, Dtypes::kAny});
  for (auto op : kBinary) {
    s.push_back({op, 2, 2, kBinaryInt.count(op) != 0 ? Dtypes::kFloatInt : Dtypes::kFloat});
  }
  s.push_back({"greater", 2, 2, Dtypes::kFloatInt, true});
  s.push_back({"less", 2, 2, Dtypes::kFloatInt, true});
  s.push_back({"where", 3, 3, Dtypes::kFloatInt});
  s.push_back({"clamp", 1, 1, Dtypes::kFloatInt});
  s.push_back({"matmul", 2, 2, Dtypes::kFloat});
  s.push_back({"linear", 3, 3, Dtypes::kFloat});
  s.push_back({"conv1d", 3, 3, Dtypes::kFloat});
  s.push_back({"conv2d", 3, 3, Dtypes::kFloat});
  s.push_back({"max_pool2d", 1, 1, Dtypes::kFloat});
  s.push_back({"avg_pool2d", 1, 1, Dtypes::kFloat});
  s.push_back({"reduce_sum", 1, 1, Dtypes::kFloatInt});
  s.push_back({"reduce_max", 1, 1, Dtypes::kFloatInt});
  s.push_back({"reduce_min", 1, 1, Dtypes::kFloatInt});
  s.push_back({"reduce_mean", 1, 1, Dtypes::kFloat});
  s.push_back({"softmax", 1, 1, Dtypes::kFloat});
  s.push_back({"log_softmax", 1, 1, Dtypes::kFloat});
  s.push_back({"layer_norm", 1, 1, Dtypes::kFloat});
  s.push_back({"batch_norm", 5, 5, Dtypes::kFloat});
  s.push_back({"reshape", 1, 1, Dtypes::kAny});
  s.push_back({"transpose", 1, 1, Dtypes::kAny});
  s.push_back({"concat", 2, 3, Dtypes::kAny});
  s.push_back({"slice", 1, 1, Dtypes::kAny});
  s.push_back({"pad", 1, 1, Dtypes::kAny});
  s.push_back({"unsqueeze", 1, 1, Dtypes::kAny});
  s.push_back({"squeeze", 1, 1, Dtypes::kAny});
  s.push_back({"expand", 1, 1, Dtypes::kAny});
  return s;
}

// Attribute readers: a missing or mistyped attribute throws AttrError,
// which infer() turns into its message.
struct AttrError {
  std::string what;
};

// Integer attributes are bounded (util/number.hpp's check, as every numeric
// field of a graph): far beyond any valid shape, dim or offset, and small
// enough that the shape arithmetic of infer() cannot overflow int64.
constexpr util::IntRange kAttrRange{-(int64_t{1} << 40), int64_t{1} << 40};

int64_t attr_int(const json& x, const char* key) {
  const bool too_big = x.is_number_unsigned() && x.get<uint64_t>() > uint64_t{INT64_MAX};
  const int64_t v = too_big ? INT64_MAX : x.get<int64_t>();
  if (auto why = util::out_of_range(std::string("attribute '") + key + "'", v, kAttrRange)) {
    throw AttrError{*why};
  }
  return v;
}

int64_t int_attr(const json& a, const char* key) {
  if (!a.is_object() || !a.contains(key) || !a[key].is_number_integer()) {
    throw AttrError{std::string("attribute '") + key + "' must be an integer"};
  }
  return attr_int(a[key], key);
}
double num_attr(const json& a, const char* key) {
  if (!a.is_object() || !a.contains(key) || !a[key].is_number()) {
    throw AttrError{std::string("attribute '") + key + "' must be a number"};
  }
  const double v = a[key].get<double>();
  if (!std::isfinite(v)) throw AttrError{std::string("attribute '") + key + "' must be finite"};
  return v;
}
bool bool_attr(const json& a, const char* key) {
  if (!a.is_object() || !a.contains(key) || !a[key].is_boolean()) {
    throw AttrError{std::string("attribute '") + key + "' must be true or false"};
  }
  return a[key].get<bool>();
}
std::vector<int64_t> ints_attr(const json& a, const char* key) {
  if (!a.is_object() || !a.contains(key) || !a[key].is_array()) {
    throw AttrError{std::string("attribute '") + key + "' must be a list of integers"};
  }
  std::vector<int64_t> v;
  for (const auto& x : a[key]) {
    if (!x.is_number_integer()) {
      throw AttrError{std::string("attribute '") + key + "' must be a list of integers"};
    }
    v.push_back(attr_int(x, key));
  }
  return v;
}
std::vector<int64_t> pair_attr(const json& a, const char* key) {
  auto v = ints_attr(a, key);
  if (v.size() != 2) throw AttrError{std::string("attribute '") + key + "' must have 2 values"};
  return v;
}

std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = std::max(x, y);
  }
  return out;
}

std::string need(const char* what) {
  return std::string(what);
}

bool dtype_ok(Dtypes allowed, DType d) {
  switch (allowed) {
    case Dtypes::kFloat:
      return is_float(d);
    case Dtypes::kFloatInt:
      return is_float(d) || d == DType::kInt32;
    case Dtypes::kAny:
      return true;
  }
  return false;
}

// conv and pool output length: floor((n + 2p - d(k-1) - 1) / s) + 1, or -1.
int64_t window_out(int64_t n, int64_t k, int64_t s, int64_t p, int64_t d) {
  const int64_t span = n + 2 * p - d * (k - 1) - 1;
  if (span < 0 || s < 1) return -1;
  return span / s + 1;
}

Result infer_conv(const std::vector<Type>& in, const json& a, size_t spatial) {
  const auto& x = in[0].shape;
  const auto& w = in[1].shape;
  const auto& b = in[2].shape;
  if (x.size() != spatial + 2) return "input must have rank " + std::to_string(spatial + 2);
  if (w.size() != spatial + 2) return "weight must have rank " + std::to_string(spatial + 2);
  if (b.size() != 1 || b[0] != w[0]) return need("bias must be [out_channels]");
  if (in[1].dtype != in[0].dtype || in[2].dtype != in[0].dtype) return need("dtypes differ");
  const int64_t groups = int_attr(a, "groups");
  std::vector<int64_t> stride;
  std::vector<int64_t> pad;
  std::vector<int64_t> dil;
  if (spatial == 1) {
    stride = {int_attr(a, "stride")};
    pad = {int_attr(a, "padding")};
    dil = {int_attr(a, "dilation")};
  } else {
    stride = pair_attr(a, "stride");
    pad = pair_attr(a, "padding");
    dil = pair_attr(a, "dilation");
  }
  if (groups < 1 || x[1] % groups != 0 || w[0] % groups != 0) {
    return need("groups must divide in and out channels");
  }
  if (w[1] * groups != x[1]) return need("weight's dim 1 must be channels / groups");
  Shape out = {x[0], w[0]};
  for (size_t i = 0; i < spatial; ++i) {
    if (stride[i] < 1 || dil[i] < 1 || pad[i] < 0)
      return need("stride, dilation >= 1, padding >= 0");
    const int64_t n = window_out(x[2 + i], w[2 + i], stride[i], pad[i], dil[i]);
    if (n < 1) return need("the kernel does not fit the padded input");
    out.push_back(n);
  }
  return Type{out, in[0].dtype};
}

Result infer_pool(std::string_view op, const std::vector<Type>& in, const json& a) {
  const auto& x = in[0].shape;
  if (x.size() != 4) return need("input must be [N, C, H, W]");
  const auto k = pair_attr(a, "kernel");
  const auto s = pair_attr(a, "stride");
  std::vector<int64_t> p = {0, 0};
  if (op == "max_pool2d") p = pair_attr(a, "padding");
  Shape out = {x[0], x[1]};
  for (size_t i = 0; i < 2; ++i) {
    if (k[i] < 1 || s[i] < 1 || p[i] < 0 || 2 * p[i] > k[i]) {
      return need("kernel, stride >= 1 and 0 <= padding <= kernel / 2");
    }
    const int64_t n = window_out(x[2 + i], k[i], s[i], p[i], 1);
    if (n < 1) return need("the kernel does not fit the input");
    out.push_back(n);
  }
  return Type{out, in[0].dtype};
}

Result infer_reduce(const std::vector<Type>& in, const json& a) {
  const auto& x = in[0].shape;
  const auto axes = ints_attr(a, "axes");
  const bool keep = bool_attr(a, "keepdims");
  if (axes.empty()) return need("axes must not be empty");
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= static_cast<int64_t>(x.size()) ||
        (i > 0 && axes[i] <= axes[i - 1])) {
      return need("axes must be sorted, distinct and within the rank");
    }
  }
  Shape out;
  for (size_t d = 0; d < x.size(); ++d) {
    const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    if (!reduced) {
      out.push_back(x[d]);
    } else if (keep) {
      out.push_back(1);
    }
  }
  if (out.empty()) return need("the result would be a scalar");
  return Type{out, in[0].dtype};
}

// slice, pad, unsqueeze, squeeze, expand: the shape changes, the values stay.
Result infer_resize(std::string_view op, const std::vector<Type>& in, const json& a) {
  const auto& x = in[0].shape;
  const auto rank = static_cast<int64_t>(x.size());
  if (op == "slice") {
    const int64_t axis = int_attr(a, "axis");
    const int64_t start = int_attr(a, "start");
    const int64_t end = int_attr(a, "end");
    const int64_t step = int_attr(a, "step");
    if (axis < 0 || axis >= rank) return need("axis out of range");
    const int64_t dim = x[static_cast<size_t>(axis)];
    if (start < 0 || start >= end || end > dim || step < 1) {
      return need("need 0 <= start < end <= dim and step >= 1");
    }
    Shape out = x;
    out[static_cast<size_t>(axis)] = (end - start + step - 1) / step;
    return Type{out, in[0].dtype};
  }
  if (op == "pad") {
    if (!a.is_object() || !a.contains("pads") || !a["pads"].is_array() ||
        a["pads"].size() != x.size()) {
      return need("pads must be one [before, after] per dim");
    }
    Shape out = x;
    for (size_t d = 0; d < x.size(); ++d) {
      const auto& p = a["pads"][d];
      if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() ||
          !p[1].is_number_integer() || attr_int(p[0], "pads") < 0 || attr_int(p[1], "pads") < 0) {
        return need("pads must be one [before, after] per dim, each >= 0");
      }
      out[d] += attr_int(p[0], "pads") + attr_int(p[1], "pads");
    }
    return Type{out, in[0].dtype};
  }
  if (op == "unsqueeze") {
    const int64_t axis = int_attr(a, "axis");
    if (axis < 0 || axis > rank) return need("axis out of range");
    if (rank >= 6) return need("rank would exceed 6");
    Shape out = x;
    out.insert(out.begin() + axis, 1);
    return Type{out, in[0].dtype};
  }
  if (op == "squeeze") {
    const int64_t axis = int_attr(a, "axis");
    if (axis < 0 || axis >= rank || x[static_cast<size_t>(axis)] != 1) {
      return need("axis must name a dim of size 1");
    }
    if (rank < 2) return need("the result would be a scalar");
    Shape out = x;
    out.erase(out.begin() + axis);
    return Type{out, in[0].dtype};
  }
  // expand
  const auto shape = ints_attr(a, "shape");
  if (shape.size() != x.size()) return need("shape must have the input's rank");
  for (size_t d = 0; d < x.size(); ++d) {
    if (shape[d] != x[d] && x[d] != 1) return need("only dims of size 1 expand");
    if (shape[d] < 1) return need("dims must be >= 1");
  }
  return Type{shape, in[0].dtype};
}

Result infer_shape_op(std::string_view op, const std::vector<Type>& in, const json& a) {
  const auto& x = in[0].shape;
  const auto rank = static_cast<int64_t>(x.size());
  if (op == "reshape") {
    const auto shape = ints_attr(a, "shape");
    if (shape.empty() || std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 1; })) {
      return need("shape must be non-empty, every dim >= 1");
    }
    if (numel(shape) != numel(x)) return need("reshape must keep the element count");
    return Type{shape, in[0].dtype};
  }
  if (op == "transpose") {
    const auto perm = ints_attr(a, "perm");
    auto sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < rank; ++i) {
      if (sorted.size() != x.size() || sorted[static_cast<size_t>(i)] != i) {
        return need("perm must be a permutation of the dims");
      }
    }
    Shape out;
    for (auto p : perm) out.push_back(x[static_cast<size_t>(p)]);
    return Type{out, in[0].dtype};
  }
  if (op == "concat") {
    const int64_t axis = int_attr(a, "axis");
    if (axis < 0 || axis >= rank) return need("axis out of range");
    Shape out = x;
    for (size_t i = 1; i < in.size(); ++i) {
      const auto& y = in[i].shape;
      if (y.size() != x.size() || in[i].dtype != in[0].dtype) return need("operands differ");
      for (int64_t d = 0; d < rank; ++d) {
        if (d != axis && y[static_cast<size_t>(d)] != x[static_cast<size_t>(d)]) {
          return need("operands differ off the axis");
        }
      }
      out[static_cast<size_t>(axis)] += y[static_cast<size_t>(axis)];
    }
    return Type{out, in[0].dtype};
  }
  return infer_resize(op, in, a);
}

// The elementwise family: unary ops, casts, binary ops and comparisons,
// where, clamp; nullopt for any other op.
std::optional<Result> infer_elementwise(std::string_view op, const std::vector<Type>& in,
                                        const json& a) {
  const DType d = in[0].dtype;
  if (kUnary.count(op) != 0) return in[0];
  if (op == "cast") {
    const auto to = a.is_object() && a.contains("to") && a["to"].is_string()
                        ? dtype_from(a["to"].get<std::string>())
                        : std::nullopt;
    if (!to) return need("attribute 'to' must name a dtype");
    if (*to == d) return need("casts to its own dtype");
    if (*to == DType::kBool) return need("does not cast to bool");
    return Type{in[0].shape, *to};
  }
  if (kBinary.count(op) != 0 || op == "greater" || op == "less") {
    if (in[1].dtype != d) return need("operand dtypes differ");
    auto s = broadcast(in[0].shape, in[1].shape);
    if (!s) {
      return "shapes " + shape_text(in[0].shape) + " and " + shape_text(in[1].shape) +
             " do not broadcast";
    }
    return Type{*s, op == "greater" || op == "less" ? DType::kBool : d};
  }
  if (op == "where") {
    if (d != DType::kBool) return need("the condition must be bool");
    if (in[1].dtype != in[2].dtype || !dtype_ok(Dtypes::kFloatInt, in[1].dtype)) {
      return need("the branches must share a float or int dtype");
    }
    auto s = broadcast(in[0].shape, in[1].shape);
    if (s) s = broadcast(*s, in[2].shape);
    if (!s) return need("the operands do not broadcast");
    return Type{*s, in[1].dtype};
  }
  if (op == "clamp") {
    if (num_attr(a, "min") >= num_attr(a, "max")) return need("min must be below max");
    return in[0];
  }
  return std::nullopt;
}

Result infer_matmul(std::string_view op, const std::vector<Type>& in) {
  const DType d = in[0].dtype;
  const auto& x = in[0].shape;
  if (op == "matmul") {
    const auto& y = in[1].shape;
    if (in[1].dtype != d) return need("operand dtypes differ");
    if (x.size() < 2 || x.size() > 4 || y.size() != x.size()) {
      return need("operands must have the same rank, 2 to 4");
    }
    if (!std::equal(x.begin(), x.end() - 2, y.begin())) return need("batch dims differ");
    if (x[x.size() - 1] != y[y.size() - 2]) return need("inner dims differ");
    Shape out = x;
    out.back() = y.back();
    return Type{out, d};
  }
  const auto& w = in[1].shape;  // linear
  const auto& b = in[2].shape;
  if (in[1].dtype != d || in[2].dtype != d) return need("dtypes differ");
  if (w.size() != 2 || b.size() != 1 || b[0] != w[0] || x.empty() || x.back() != w[1]) {
    return need("needs x[..., K], weight[N, K], bias[N]");
  }
  Shape out = x;
  out.back() = w[0];
  return Type{out, d};
}

// softmax, log_softmax, layer_norm, batch_norm
Result infer_normalizing(std::string_view op, const std::vector<Type>& in, const json& a) {
  const auto rank = static_cast<int64_t>(in[0].shape.size());
  if (op == "softmax" || op == "log_softmax") {
    const int64_t axis = int_attr(a, "axis");
    if (axis < 0 || axis >= rank) return need("axis out of range");
    return in[0];
  }
  if (op == "layer_norm") {
    const int64_t k = int_attr(a, "normalized_dims");
    if (k < 1 || k > rank) return need("normalized_dims must be 1..rank");
    if (num_attr(a, "eps") <= 0) return need("eps must be positive");
    return in[0];
  }
  const auto& x = in[0].shape;  // batch_norm
  if (x.size() < 2) return need("input must be [N, C, ...]");
  for (size_t i = 1; i < 5; ++i) {
    if (in[i].dtype != in[0].dtype || in[i].shape != Shape{x[1]}) {
      return need("mean, var, weight and bias must be [C] of the input's dtype");
    }
  }
  if (num_attr(a, "eps") <= 0) return need("eps must be positive");
  return in[0];
}

Result infer_checked(std::string_view op, const std::vector<Type>& in, const json& a) {
  const OpSpec* spec = find_op(op);
  if (spec == nullptr) return "unknown op '" + std::string(op) + "'";
  if (static_cast<int>(in.size()) < spec->min_inputs ||
      static_cast<int>(in.size()) > spec->max_inputs) {
    return "takes " + std::to_string(spec->min_inputs) +
           (spec->max_inputs != spec->min_inputs ? "-" + std::to_string(spec->max_inputs) : "") +
           " inputs, got " + std::to_string(in.size());
  }
  if (op != "where" && !dtype_ok(spec->dtypes, in[0].dtype)) {
    return "does not take " + std::string(to_string(in[0].dtype));
  }
  if (auto r = infer_elementwise(op, in, a)) return *r;
  if (op == "matmul" || op == "linear") return infer_matmul(op, in);
  if (op == "conv1d") return infer_conv(in, a, 1);
  if (op == "conv2d") return infer_conv(in, a, 2);
  if (op == "max_pool2d" || op == "avg_pool2d") return infer_pool(op, in, a);
  if (op.substr(0, 7) == "reduce_") return infer_reduce(in, a);
  if (op == "softmax" || op == "log_softmax" || op == "layer_norm" || op == "batch_norm") {
    return infer_normalizing(op, in, a);
  }
  return infer_shape_op(op, in, a);
}

Interval hull(std::initializer_list<double> xs) {
  return {std::min(xs), std::max(xs)};
}
Interval mul(Interval a, Interval b) {
  return hull({a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi});
}
Interval scale(Interval a, double k) {
  return hull({a.lo * k, a.hi * k});
}
Interval add(Interval a, Interval b) {
  return {a.lo + b.lo, a.hi + b.hi};
}
Interval with_zero(Interval a) {
  return {std::min(a.lo, 0.0), std::max(a.hi, 0.0)};
}
double gelu(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}
double softplus(double x) {
  return std::log1p(std::exp(x));
}
double sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}

template <typename F>
Interval monotone(Interval a, F f) {
  return hull({f(a.lo), f(a.hi)});
}

Interval propagate_unary(std::string_view op, Interval x, const json& a) {
  const double m = std::max(std::abs(x.lo), std::abs(x.hi));
  if (op == "neg") return {-x.hi, -x.lo};
  if (op == "abs" || op == "square") {
    Interval r = x.lo >= 0 ? x : x.hi <= 0 ? Interval{-x.hi, -x.lo} : Interval{0, m};
    return op == "abs" ? r : Interval{r.lo * r.lo, r.hi * r.hi};
  }
  if (op == "exp") return monotone(x, [](double v) { return std::exp(v); });
  if (op == "log") return monotone(x, [](double v) { return std::log(v); });
  if (op == "sqrt") return monotone(x, [](double v) { return std::sqrt(std::max(v, 0.0)); });
  if (op == "rsqrt") return monotone(x, [](double v) { return 1 / std::sqrt(v); });
  if (op == "reciprocal") return monotone(x, [](double v) { return 1 / v; });
  if (op == "sin" || op == "cos") return {-1, 1};
  if (op == "tanh") return monotone(x, [](double v) { return std::tanh(v); });
  if (op == "sigmoid") return monotone(x, sigmoid);
  if (op == "relu") return {std::max(x.lo, 0.0), std::max(x.hi, 0.0)};
  if (op == "leaky_relu") {
    const double alpha = a.value("alpha", 0.01);
    auto f = [alpha](double v) { return v >= 0 ? v : alpha * v; };
    return monotone(x, f);
  }
  if (op == "elu") return monotone(x, [](double v) { return v > 0 ? v : std::expm1(v); });
  if (op == "softplus") return monotone(x, softplus);
  // gelu: not monotone; its minimum is about -0.17 near x = -0.75
  const Interval r = hull({gelu(x.lo), gelu(x.hi)});
  return {x.lo < -0.75 && x.hi > -0.75 ? std::min(r.lo, -0.1701) : r.lo - 1e-12, r.hi};
}

}  // namespace

const std::vector<OpSpec>& op_specs() {
  static const std::vector<OpSpec> specs = make_specs();
  return specs;
}

const OpSpec* find_op(std::string_view name) {
  for (const auto& s : op_specs()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::vector<std::string> op_names() {
  std::vector<std::string> out;
  for (const auto& s : op_specs()) out.emplace_back(s.name);
  return out;
}

bool is_unary(std::string_view op) {
  return kUnary.count(op) != 0;
}
bool is_binary(std::string_view op) {
  return kBinary.count(op) != 0;
}

std::variant<Type, std::string> infer(std::string_view op, const std::vector<Type>& in,
                                      const nlohmann::json& attrs) {
  try {
    return infer_checked(op, in, attrs);
  } catch (const AttrError& e) {
    return e.what;
  }
}

Interval propagate(std::string_view op, const std::vector<Interval>& r, const std::vector<Type>& in,
                   const nlohmann::json& a) {
  if (is_unary(op)) return propagate_unary(op, r[0], a);
  if (op == "cast") {
    const auto to = dtype_from(a.value("to", ""));
    if (in[0].dtype == DType::kBool) return {0, 1};
    if (to == DType::kInt32) return {std::trunc(r[0].lo), std::trunc(r[0].hi)};
    return r[0];
  }
  if (op == "add") return add(r[0], r[1]);
  if (op == "sub") return {r[0].lo - r[1].hi, r[0].hi - r[1].lo};
  if (op == "mul") return mul(r[0], r[1]);
  if (op == "div") return mul(r[0], hull({1 / r[1].lo, 1 / r[1].hi}));
  if (op == "maximum") return {std::max(r[0].lo, r[1].lo), std::max(r[0].hi, r[1].hi)};
  if (op == "minimum") return {std::min(r[0].lo, r[1].lo), std::min(r[0].hi, r[1].hi)};
  if (op == "pow") {
    return hull({std::pow(r[0].lo, r[1].lo), std::pow(r[0].lo, r[1].hi), std::pow(r[0].hi, r[1].lo),
                 std::pow(r[0].hi, r[1].hi)});
  }
  if (op == "greater" || op == "less") return {0, 1};
  if (op == "where") return {std::min(r[1].lo, r[2].lo), std::max(r[1].hi, r[2].hi)};
  if (op == "clamp") {
    const double lo = a.value("min", 0.0);
    const double hi = a.value("max", 0.0);
    return {std::clamp(r[0].lo, lo, hi), std::clamp(r[0].hi, lo, hi)};
  }
  if (op == "matmul" || op == "linear" || op == "conv1d" || op == "conv2d") {
    const auto k = static_cast<double>(reduction_size(op, in, a));
    const Interval term =
        op == "matmul" || op == "linear" ? mul(r[0], r[1]) : with_zero(mul(r[0], r[1]));
    const Interval sum = {term.lo * k, term.hi * k};
    return op == "matmul" ? sum : add(sum, r[2]);
  }
  if (op == "max_pool2d" || op == "avg_pool2d" || op == "reduce_max" || op == "reduce_min" ||
      op == "reduce_mean") {
    return r[0];
  }
  if (op == "reduce_sum") return scale(r[0], static_cast<double>(reduction_size(op, in, a)));
  if (op == "softmax") return {0, 1};
  if (op == "log_softmax") {
    const auto n = static_cast<double>(reduction_size(op, in, a));
    return {r[0].lo - r[0].hi - std::log(n) - 1e-9, 0};
  }
  if (op == "layer_norm") {
    const double b = std::sqrt(static_cast<double>(reduction_size(op, in, a)));
    return {-b, b};
  }
  if (op == "batch_norm") {
    const double eps = a.value("eps", 1e-5);
    const Interval centred = {r[0].lo - r[1].hi, r[0].hi - r[1].lo};
    const Interval inv = {1 / std::sqrt(std::max(r[2].hi, 0.0) + eps),
                          1 / std::sqrt(std::max(r[2].lo, 0.0) + eps)};
    return add(mul(mul(centred, inv), r[3]), r[4]);
  }
  if (op == "pad") return with_zero(r[0]);
  if (op == "concat") {
    Interval out = r[0];
    for (const auto& x : r) out = {std::min(out.lo, x.lo), std::max(out.hi, x.hi)};
    return out;
  }
  return r[0];  // reshape, transpose, slice, unsqueeze, squeeze, expand
}

std::optional<std::string> domain_fault(std::string_view op, const std::vector<Interval>& r) {
  auto away_from_zero = [](Interval x) { return x.lo >= 0.1 || x.hi <= -0.1; };
  auto fault = [&](const char* why) -> std::optional<std::string> {
    char buf[160];
    std::snprintf(buf, sizeof(buf), "%s (input in [%g, %g])", why, r[0].lo, r[0].hi);
    return std::string(buf);
  };
  if (op == "exp" && r[0].hi > 8) return fault("exp needs x <= 8");
  if (op == "log" && r[0].lo < 0.1) return fault("log needs x >= 0.1");
  if (op == "sqrt" && r[0].lo < 0) return fault("sqrt needs x >= 0");
  if (op == "rsqrt" && r[0].lo < 0.1) return fault("rsqrt needs x >= 0.1");
  if (op == "reciprocal" && !away_from_zero(r[0])) return fault("reciprocal needs |x| >= 0.1");
  if ((op == "sin" || op == "cos") && std::max(std::abs(r[0].lo), std::abs(r[0].hi)) > 50) {
    return fault("sin and cos need |x| <= 50");
  }
  if (op == "softplus" && r[0].hi > 15) return fault("softplus needs x <= 15");
  if (op == "div" && !away_from_zero(r[1])) return std::string("div needs |divisor| >= 0.1");
  if (op == "pow" && (r[0].lo < 0.1 || std::abs(r[1].lo) > 3 || std::abs(r[1].hi) > 3)) {
    return std::string("pow needs a base >= 0.1 and |exponent| <= 3");
  }
  if (op == "batch_norm" && r[2].lo < 0.1) return std::string("batch_norm needs var >= 0.1");
  return std::nullopt;
}

int64_t reduction_size(std::string_view op, const std::vector<Type>& in, const nlohmann::json& a) {
  try {
    if (op == "matmul" || op == "linear") return in[0].shape.back();
    if (op == "conv1d" || op == "conv2d") {
      int64_t k = in[1].shape[1];
      for (size_t i = 2; i < in[1].shape.size(); ++i) k *= in[1].shape[i];
      return k;
    }
    if (op == "avg_pool2d") {
      const auto k = pair_attr(a, "kernel");
      return k[0] * k[1];
    }
    if (op == "reduce_sum" || op == "reduce_mean") {
      int64_t n = 1;
      for (auto ax : ints_attr(a, "axes")) n *= in[0].shape.at(static_cast<size_t>(ax));
      return n;
    }
    if (op == "softmax" || op == "log_softmax") {
      return in[0].shape.at(static_cast<size_t>(int_attr(a, "axis")));
    }
    if (op == "layer_norm") {
      const auto k = static_cast<size_t>(int_attr(a, "normalized_dims"));
      int64_t n = 1;
      for (size_t i = in[0].shape.size() - k; i < in[0].shape.size(); ++i) n *= in[0].shape[i];
      return n;
    }
  } catch (const AttrError&) {
    return 1;
  } catch (const std::out_of_range&) {
    return 1;
  }
  return 1;
}

}  // namespace mudjack::gen
