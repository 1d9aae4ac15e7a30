#include "report/units.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "oracle/digits.hpp"

namespace mudjack::report {
namespace {

std::string fmt(const char* format, double v) {
  std::array<char, 64> buf{};
  const int n = std::snprintf(buf.data(), buf.size(), format, v);
  return std::string(buf.data(), static_cast<size_t>(std::clamp(n, 0, 63)));
}

}  // namespace

std::string duration_text(double ns) {
  if (!std::isfinite(ns)) return "-";
  if (ns < 1e3) return fmt("%.0f ns", ns);
  if (ns < 1e6) return fmt("%.1f us", ns / 1e3);
  if (ns < 1e9) return fmt("%.1f ms", ns / 1e6);
  return fmt("%.2f s", ns / 1e9);
}

std::string eps_over_bound(const std::optional<double>& error, const std::optional<double>& bound) {
  if (!error) return bound ? "- / " + oracle::significant(*bound, 3) : "-";
  if (!bound) return oracle::significant(*error, 3);
  const auto [e, b] = oracle::told_apart(*error, *bound);
  return e + " / " + b;
}

std::string spread_ratio_text(double ratio) {
  const char* format = ratio < 10 ? "%.2f" : ratio < 100 ? "%.1f" : "%.0f";
  return "×" + fmt(format, ratio);
}

}  // namespace mudjack::report
