#include "oracle/accuracy.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "oracle/digits.hpp"

namespace mudjack::oracle {
namespace {

struct Floating {
  std::string_view name;
  double eps;
  double max;  // largest finite value
};

constexpr double kF16Eps = 0x1p-10;
constexpr double kBf16Eps = 0x1p-7;
constexpr double kF32Eps = 0x1p-23;
constexpr double kF64Eps = 0x1p-52;
constexpr double kF16Max = 65504;
constexpr double kF32Max = 3.4028234663852886e38;
constexpr double kF64Max = std::numeric_limits<double>::max();

constexpr std::array<Floating, 13> kFloating{{
    {"float16", kF16Eps, kF16Max},
    {"half", kF16Eps, kF16Max},
    {"complex32", kF16Eps, kF16Max},
    {"chalf", kF16Eps, kF16Max},
    {"bfloat16", kBf16Eps, kF32Max},
    {"float32", kF32Eps, kF32Max},
    {"float", kF32Eps, kF32Max},
    {"complex64", kF32Eps, kF32Max},
    {"cfloat", kF32Eps, kF32Max},
    {"float64", kF64Eps, kF64Max},
    {"double", kF64Eps, kF64Max},
    {"complex128", kF64Eps, kF64Max},
    {"cdouble", kF64Eps, kF64Max},
}};

constexpr std::array<std::string_view, 13> kExact{"bool",  "int8",   "int16",  "int32",  "int64",
                                                  "uint8", "uint16", "uint32", "uint64", "long",
                                                  "int",   "short",  "bool_"};

std::string_view bare(std::string_view name) {
  const size_t dot = name.rfind('.');
  if (dot != std::string_view::npos) name.remove_prefix(dot + 1);
  return name;
}

const Floating* floating(std::string_view name) {
  name = bare(name);
  for (const auto& f : kFloating) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool is_complex(std::string_view name) {
  name = bare(name);
  return name.starts_with("complex") || name == "chalf" || name == "cfloat" || name == "cdouble";
}

std::string format_g(double v) {
  std::array<char, 32> buf{};
  const int n = std::snprintf(buf.data(), buf.size(), "%.3g", v);
  return std::string(buf.data(), static_cast<size_t>(n));
}

std::string flat_index(const Array& a, size_t part) {
  size_t flat = a.is_complex ? part / 2 : part;
  std::string s;
  for (size_t d = a.shape.size(); d-- > 0;) {
    const auto dim = static_cast<size_t>(a.shape[d]);
    s.insert(0, std::to_string(flat % dim) + (d + 1 < a.shape.size() ? ", " : ""));
    flat /= dim;
  }
  return "[" + s + "]" + (a.is_complex ? (part % 2 == 0 ? ".real" : ".imag") : "");
}

double rms_of_finite(const Array& r) {
  double sum = 0;
  size_t n = 0;
  for (double v : r.values) {
    if (std::isfinite(v)) {
      sum += v * v;
      ++n;
    }
  }
  const double rms = n == 0 ? 0 : std::sqrt(sum / static_cast<double>(n));
  return rms > 0 && std::isfinite(rms) ? rms : 1;
}

// The error of one part, in eps; infinity for a non-finite miss.
double part_error(double x, double r, double eps, double scale, double max) {
  if (std::isnan(r)) return std::isnan(x) ? 0 : std::numeric_limits<double>::infinity();
  if (std::isinf(r) || std::fabs(r) > max) {  // the dtype overflows: +-inf (or +-max) is right
    const bool same_sign = std::signbit(x) == std::signbit(r);
    return same_sign && (std::isinf(x) || std::fabs(x) >= max)
               ? 0
               : std::numeric_limits<double>::infinity();
  }
  if (!std::isfinite(x)) return std::numeric_limits<double>::infinity();
  return std::fabs(x - r) / (eps * (std::fabs(r) + scale));
}

// A floating output's largest finite value, from the file's element type
// (bfloat16 is saved as float32; its range is float32's, near enough).
double largest_finite(const Array& a) {
  if (a.descr.ends_with("f2")) return kF16Max;
  if (a.descr.ends_with("f8") || a.descr.ends_with("c16")) return kF64Max;
  return kF32Max;
}

}  // namespace

std::optional<double> dtype_epsilon(std::string_view dtype_name) {
  const auto* f = floating(dtype_name);
  return f ? std::optional<double>(f->eps) : std::nullopt;
}

std::optional<double> reference_epsilon(std::string_view dtype_name) {
  auto eps = dtype_epsilon(dtype_name);
  return eps && *eps > kF64Eps ? eps : std::nullopt;
}

bool known_dtype(std::string_view dtype_name) {
  return floating(dtype_name) != nullptr ||
         std::find(kExact.begin(), kExact.end(), bare(dtype_name)) != kExact.end();
}

double floor_eps(std::string_view dtype_name) {
  const auto* f = floating(dtype_name);
  if (f == nullptr || f->eps >= kF16Eps) return 16;
  return 0x1p13;
}

bool ill_conditioned(std::string_view function) {
  // Read part by dotted part of the lowercased name ("linalg.pinv.hermitian",
  // "polygamma.polygamma_n_0"), so a variant suffix keeps its op's family.
  static constexpr std::array<std::string_view, 25> kContains{
      "gamma",      "bessel",          "zeta",        "airy",     "polynomial",
      "ndtr",       "erfinv",          "lambertw",    "expint",   "betainc",
      "betaln",     "incomplete_beta", "grid_sampl",  "solve",    "pinv",
      "inverse",    "tensorinv",       "svd",         "cholesky", "lstsq",
      "matrix_exp", "matrix_power",    "matrix_rank", "logdet",   "householder"};
  static constexpr std::array<std::string_view, 6> kPrefixes{"eig",    "ldl",   "lu_",
                                                             "lobpcg", "ormqr", "geqrf"};
  // round: a step function; with decimals= its steps move with the
  // rounding of x * 10^d (torch.round decimals=3 is 61.5 eps off on a CPU).
  static constexpr std::array<std::string_view, 10> kExactly{
      "det", "inv", "qr", "lu", "expm", "sqrtm", "logm", "schur", "polar", "round"};
  std::string lower;
  for (char c : function) {
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (lower.starts_with("fuzz/")) return true;  // a generated graph: a composition of ops
  // A condition number (linalg.cond), not control flow (jax.lax.cond).
  if (lower.find("linalg.cond") != std::string::npos) return true;
  size_t begin = 0;
  while (begin <= lower.size()) {
    const size_t end = std::min(lower.find('.', begin), lower.size());
    const std::string_view part = std::string_view(lower).substr(begin, end - begin);
    const auto in = [&](std::string_view w) { return part.find(w) != std::string_view::npos; };
    const auto starts = [&](std::string_view w) { return part.starts_with(w); };
    if (std::any_of(kContains.begin(), kContains.end(), in) ||
        std::any_of(kPrefixes.begin(), kPrefixes.end(), starts) ||
        std::find(kExactly.begin(), kExactly.end(), part) != kExactly.end()) {
      return true;
    }
    begin = end + 1;
  }
  return false;
}

OpClass op_class(std::string_view function, const nlohmann::json& dims,
                 std::optional<int64_t> declared_reduction, bool composition) {
  return {declared_reduction ? *declared_reduction : default_reduction(function, dims),
          composition || ill_conditioned(function)};
}

double alone_bound(std::string_view dtype_name, const OpClass& op) {
  const double root_k = std::sqrt(static_cast<double>(std::max<int64_t>(1, op.reduction)));
  if (op.ill_conditioned || is_complex(dtype_name)) {
    return std::max(kPerSqrtK * root_k, floor_eps(dtype_name));
  }
  return kWellAlonePerSqrtK * root_k;
}

double device_bound(std::string_view dtype_name, const OpClass& op, double baseline_error) {
  const double root_k = std::sqrt(static_cast<double>(std::max<int64_t>(1, op.reduction)));
  const bool loose = op.ill_conditioned || is_complex(dtype_name);
  const double per_sqrt_k = loose ? kPerSqrtK : kWellDevicePerSqrtK;
  // A baseline beyond its own bound lends at most kBaselineFactor times that
  // bound: its error is evidence of a hard case, a NaN or a wild miss is not.
  const double lent = std::fmin(baseline_error, kBaselineFactor * alone_bound(dtype_name, op));
  return std::max(per_sqrt_k * root_k, kBaselineFactor * lent);
}

Error measure(const Array& x, const Array& r, double eps, double bound,
              std::optional<Tolerance> loosen) {
  Error e;
  if (x.shape != r.shape) {
    e.eps = std::numeric_limits<double>::infinity();
    e.problem = "shape " + format_shape(x.shape) + " vs reference " + format_shape(r.shape);
    return e;
  }
  if (x.is_complex != r.is_complex) {
    e.eps = std::numeric_limits<double>::infinity();
    e.problem = std::string(x.is_complex ? "complex" : "real") + " output vs " +
                (r.is_complex ? "complex" : "real") + " reference";
    return e;
  }
  const double max = largest_finite(x);
  const double scale = rms_of_finite(r);
  size_t worst = 0;
  for (size_t i = 0; i < x.values.size(); ++i) {
    double err = part_error(x.values[i], r.values[i], eps, scale, max);
    if (loosen && std::isfinite(x.values[i]) && std::isfinite(r.values[i]) &&
        std::fabs(x.values[i] - r.values[i]) <=
            loosen->atol + loosen->rtol * std::fabs(r.values[i])) {
      err = 0;
    }
    if (std::isfinite(r.values[i])) e.ref_peak = std::max(e.ref_peak, std::fabs(r.values[i]));
    if (std::isfinite(x.values[i]) && std::isfinite(r.values[i])) {
      const double diff = std::fabs(x.values[i] - r.values[i]);
      e.max_abs = std::max(e.max_abs, diff);
      if (r.values[i] != 0) e.max_rel = std::max(e.max_rel, diff / std::fabs(r.values[i]));
    } else if (err > 0 && std::isfinite(r.values[i])) {
      // a non-finite miss of a finite reference is infinitely off, not 0
      e.max_abs = e.max_rel = std::numeric_limits<double>::infinity();
    }
    if (err > bound) ++e.beyond;
    if (err > e.eps || (i == 0 && err == 0)) {
      if (err > e.eps) e.eps = err;
      worst = i;
    }
  }
  e.count = static_cast<int64_t>(x.values.size());
  if (!x.values.empty()) {
    // Digits enough to see the difference (1.0625 vs reference 1.0615, not 1.06 vs 1.06).
    const auto [seen, expected] = oracle::told_apart(x.values[worst], r.values[worst]);
    e.worst = flat_index(x, worst) + ": " + seen + " vs reference " + expected;
  }
  return e;
}

std::optional<std::string> unstable_output(const Error& e, std::string_view dtype) {
  if (!e.problem.empty() || e.count == 0) return std::nullopt;
  if (e.ref_peak > kUnstablePeak) {
    return "its float64 output reaches " + format_g(e.ref_peak) +
           " at its random weights: the model blows up there";
  }
  double normal = 0;
  if (dtype == "float16") normal = 6.103515625e-05;
  if (dtype == "bfloat16" || dtype == "float32" || dtype == "complex64") normal = 1.1754943508e-38;
  if (normal > 0 && e.ref_peak < normal) {
    return "its float64 output peaks at " + format_g(e.ref_peak) + ", below " + std::string(dtype) +
           "'s smallest normal number: the model underflows there";
  }
  return std::nullopt;
}

Error measure_files(const std::filesystem::path& x, const std::filesystem::path& r, double eps,
                    double bound, std::optional<Tolerance> loosen) {
  const ReadResult a = read_npy(x);
  const ReadResult b = a.ok() ? read_npy(r) : ReadResult{};
  if (!a.ok() || !b.ok()) {
    Error e;
    e.eps = std::numeric_limits<double>::infinity();
    e.problem = a.ok() ? b.error : a.error;
    return e;
  }
  return measure(*a.array, *b.array, eps, bound, loosen);
}

std::string describe(const Error& e, double bound, std::string_view against) {
  if (!e.problem.empty()) return e.problem;
  std::string what = e.count == 1 ? " element" : " elements";
  // The worst error beside the bound it is beyond, each with digits enough to differ.
  const auto [worst_eps, limit] = oracle::told_apart(e.eps, bound);
  std::string worst = std::isinf(e.eps) ? std::string("non-finite") : worst_eps + " eps";
  return std::to_string(e.beyond) + " of " + std::to_string(e.count) + what + " beyond " + limit +
         " eps of " + std::string(against) + "; worst " + worst + " at " + e.worst;
}

int64_t default_reduction(std::string_view function, const nlohmann::json& dims) {
  // The function's own name (its last dotted part), lowercased, read by prefix;
  // a module named linalg or fft puts every function in it in the family.
  // Transforms (fft, dct, stft) sum over a whole axis, wherever their module.
  static constexpr std::array<std::string_view, 49> kPrefixes{
      "matmul", "bmm",      "addmm",       "baddbmm",    "addmv",     "einsum",      "tensordot",
      "linear", "dense",    "conv",        "attention",  "multihead", "transformer", "lstm",
      "gru",    "rnn",      "sequential",  "solve",      "slogdet",   "svd",         "eig",
      "qr",     "cholesky", "lstsq",       "sum",        "nansum",    "mean",        "nanmean",
      "norm",   "softmax",  "log_softmax", "logsumexp",  "reduce_",   "cumsum",      "cumprod",
      "var_",   "std_",     "batch_norm",  "layer_norm", "fft",       "ifft",        "rfft",
      "irfft",  "hfft",     "ihfft",       "dct",        "idct",      "stft",        "istft"};
  static constexpr std::array<std::string_view, 6> kContains{"prod",    "loss",   "pool",
                                                             "average", "matrix", "triangular"};
  static constexpr std::array<std::string_view, 11> kExactly{
      "mm", "mv", "dot", "vdot", "inner", "outer", "inv", "det", "pinv", "var", "std"};
  std::string lower;
  for (char c : function) {
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  const auto dot = lower.rfind('.');
  const std::string name = dot == std::string::npos ? lower : lower.substr(dot + 1);
  const bool in_module =
      lower.find(".linalg.") != std::string::npos || lower.find(".fft.") != std::string::npos;
  const bool family = in_module ||
                      std::any_of(kPrefixes.begin(), kPrefixes.end(),
                                  [&](std::string_view p) { return name.starts_with(p); }) ||
                      std::find(kExactly.begin(), kExactly.end(), name) != kExactly.end() ||
                      std::any_of(kContains.begin(), kContains.end(), [&](std::string_view p) {
                        return name.find(p) != std::string::npos;
                      });
  if (!family) return 1;
  int64_t largest = 16;
  if (dims.is_array()) {
    for (const auto& d : dims) {
      if (d.is_number_integer()) largest = std::max(largest, d.get<int64_t>());
    }
  }
  return largest;
}

bool reduces(std::string_view op) {
  const size_t dot = op.rfind('.');
  if (dot != std::string_view::npos) op.remove_prefix(dot + 1);
  while (op.starts_with('_')) op.remove_prefix(1);
  if (op.starts_with("native_")) op.remove_prefix(std::string_view("native_").size());
  if (op.starts_with("dot_general") || op.starts_with("conv_general")) return true;
  return default_reduction(op, nlohmann::json()) > 1;
}

}  // namespace mudjack::oracle
