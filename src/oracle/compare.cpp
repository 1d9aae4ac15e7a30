#include "oracle/compare.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

namespace mudjack::oracle {
namespace {

struct NamedTolerance {
  std::string_view name;
  Tolerance tol;
};

constexpr Tolerance kFloat16{1e-3, 1e-3};
constexpr Tolerance kBfloat16{1.6e-2, 1e-2};
constexpr Tolerance kFloat32{1e-3, 1e-3};
constexpr Tolerance kFloat64{1e-7, 1e-7};
constexpr Tolerance kExact{0, 0};

constexpr std::array<NamedTolerance, 25> kTolerances{{
    {"float16", kFloat16}, {"half", kFloat16},      {"complex32", kFloat16},
    {"chalf", kFloat16},   {"bfloat16", kBfloat16}, {"float32", kFloat32},
    {"float", kFloat32},   {"complex64", kFloat32}, {"cfloat", kFloat32},
    {"float64", kFloat64}, {"double", kFloat64},    {"complex128", kFloat64},
    {"cdouble", kFloat64}, {"bool", kExact},        {"int8", kExact},
    {"int16", kExact},     {"int32", kExact},       {"int64", kExact},
    {"uint8", kExact},     {"uint16", kExact},      {"uint32", kExact},
    {"uint64", kExact},    {"long", kExact},        {"int", kExact},
    {"short", kExact},
}};

struct Element {
  double re = 0;
  double im = 0;
};

Element element_at(const Array& a, size_t i) {
  if (a.is_complex) {
    return {a.values[2 * i], a.values[2 * i + 1]};
  }
  return {a.values[i], 0.0};
}

// Shortest text that reads back as the same double ("0.5", "1e-05").
std::string format_double(double v) {
  if (std::isnan(v)) {
    return "nan";
  }
  if (std::isinf(v)) {
    return v > 0 ? "inf" : "-inf";
  }
  std::array<char, 32> buf{};
  const auto result = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), result.ptr);
}

// Python's complex repr: "(1.5-0.25j)".
std::string format_element(Element e, bool is_complex) {
  if (!is_complex) {
    return format_double(e.re);
  }
  std::string s = "(" + format_double(e.re);
  if (std::isnan(e.im) || !std::signbit(e.im)) {
    s += "+";
  }
  return s + format_double(e.im) + "j)";
}

std::string format_index(std::span<const int64_t> shape, size_t flat) {
  std::vector<int64_t> index(shape.size());
  auto rest = static_cast<int64_t>(flat);
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = rest % shape[d];
    rest /= shape[d];
  }
  std::string s = "[";
  for (size_t d = 0; d < index.size(); ++d) {
    if (d > 0) {
      s += ", ";
    }
    s += std::to_string(index[d]);
  }
  return s + "]";
}

std::string format_g(double v) {
  std::array<char, 32> buf{};
  const int n = std::snprintf(buf.data(), buf.size(), "%g", v);
  return std::string(buf.data(), static_cast<size_t>(n));
}

void require_well_formed(const Array& a) {
  const auto expected = static_cast<size_t>(a.element_count()) * (a.is_complex ? 2 : 1);
  if (a.values.size() != expected) {
    std::abort();  // broken invariant: not from read_npy
  }
}

std::string int_text(uint64_t v, bool is_unsigned) {
  return is_unsigned ? std::to_string(v) : std::to_string(static_cast<int64_t>(v));
}

// 64-bit integers, exactly (a double holds only 53 bits).
Comparison compare_ints(const Array& actual, const Array& expected) {
  Comparison c;
  size_t differing = 0;
  size_t first = 0;
  for (size_t i = 0; i < actual.ints.size(); ++i) {
    if (actual.ints[i] == expected.ints[i]) continue;
    if (differing++ == 0) first = i;
  }
  c.equal = differing == 0;
  if (!c.equal) {
    const size_t n = actual.ints.size();
    c.message = std::to_string(differing) + " of " + std::to_string(n) +
                (n == 1 ? " element" : " elements") + " differ (exact 64-bit integers); first at " +
                format_index(actual.shape, first) + ": " +
                int_text(actual.ints[first], actual.is_unsigned) + " vs " +
                int_text(expected.ints[first], expected.is_unsigned);
  }
  return c;
}

}  // namespace

Tolerance default_tolerance(std::string_view dtype_name) {
  const size_t dot = dtype_name.rfind('.');
  if (dot != std::string_view::npos) {
    dtype_name.remove_prefix(dot + 1);
  }
  for (const auto& [name, tol] : kTolerances) {
    if (name == dtype_name) {
      return tol;
    }
  }
  return kFloat32;
}

Comparison compare(const Array& actual, const Array& expected, Tolerance tol) {
  require_well_formed(actual);
  require_well_formed(expected);
  Comparison c;
  if (actual.shape != expected.shape) {
    c.message =
        "shape " + format_shape(actual.shape) + " vs baseline " + format_shape(expected.shape);
    return c;
  }
  const auto n = static_cast<size_t>(actual.element_count());
  if (actual.ints.size() == n && expected.ints.size() == n &&
      actual.is_unsigned == expected.is_unsigned) {
    return compare_ints(actual, expected);
  }
  const bool is_complex = actual.is_complex || expected.is_complex;
  size_t differing = 0;
  size_t worst = 0;
  double worst_excess = -1;
  for (size_t i = 0; i < n; ++i) {
    const Element a = element_at(actual, i);
    const Element e = element_at(expected, i);
    const bool a_nan = std::isnan(a.re) || std::isnan(a.im);
    const bool e_nan = std::isnan(e.re) || std::isnan(e.im);
    bool ok = false;
    double excess = std::numeric_limits<double>::infinity();
    if (a_nan || e_nan) {
      ok = a_nan && e_nan;
    } else if (!std::isfinite(a.re) || !std::isfinite(a.im) || !std::isfinite(e.re) ||
               !std::isfinite(e.im)) {
      ok = a.re == e.re && a.im == e.im;
    } else {
      const double diff = std::hypot(a.re - e.re, a.im - e.im);
      const double magnitude = std::hypot(e.re, e.im);
      const double allowed = tol.atol + tol.rtol * magnitude;
      ok = diff <= allowed;
      excess = diff - allowed;
      c.max_abs_err = std::max(c.max_abs_err, diff);
      if (magnitude != 0) {
        c.max_rel_err = std::max(c.max_rel_err, diff / magnitude);
      }
    }
    if (ok) {
      continue;
    }
    ++differing;
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = i;
    }
  }
  c.equal = differing == 0;
  if (!c.equal) {
    c.message = std::to_string(differing) + " of " + std::to_string(n) +
                (n == 1 ? " element" : " elements") + " beyond rtol=" + format_g(tol.rtol) +
                " atol=" + format_g(tol.atol) + "; worst at " + format_index(actual.shape, worst) +
                ": " + format_element(element_at(actual, worst), is_complex) + " vs " +
                format_element(element_at(expected, worst), is_complex);
  }
  return c;
}

Comparison compare_files(const std::filesystem::path& actual, const std::filesystem::path& expected,
                         Tolerance tol) {
  const ReadResult a = read_npy(actual);
  if (!a.ok()) {
    return Comparison{.equal = false, .message = a.error};
  }
  const ReadResult e = read_npy(expected);
  if (!e.ok()) {
    return Comparison{.equal = false, .message = e.error};
  }
  return compare(*a.array, *e.array, tol);
}

}  // namespace mudjack::oracle
