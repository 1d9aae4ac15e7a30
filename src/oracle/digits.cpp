#include "oracle/digits.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace mudjack::oracle {

std::string significant(double v, int digits) {
  std::array<char, 48> buf{};
  const int n = std::snprintf(buf.data(), buf.size(), "%.*g", digits, v);
  return std::string(buf.data(), static_cast<size_t>(std::clamp(n, 0, 47)));
}

std::string shortest(double v) {
  if (!std::isfinite(v)) return significant(v, 3);
  for (int digits = 1; digits < 17; ++digits) {
    std::string text = significant(v, digits);
    if (std::strtod(text.c_str(), nullptr) == v) return text;
  }
  return significant(v, 17);
}

std::pair<std::string, std::string> told_apart(double a, double b) {
  const bool same = a == b || (std::isnan(a) && std::isnan(b));
  for (const int digits : {3, 6}) {
    std::pair<std::string, std::string> out{significant(a, digits), significant(b, digits)};
    if (same || out.first != out.second) return out;
  }
  return {shortest(a), shortest(b)};
}

}  // namespace mudjack::oracle
