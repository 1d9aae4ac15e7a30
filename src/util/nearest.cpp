#include "util/nearest.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <utility>

namespace mudjack::util {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::optional<std::string> nearest(std::string_view word,
                                   const std::vector<std::string>& candidates,
                                   size_t max_distance) {
  std::optional<std::string> best;
  size_t best_distance = SIZE_MAX;
  for (const auto& c : candidates) {
    if (const size_t d = edit_distance(word, c); d < best_distance && d <= max_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::optional<std::string> dtype_meaning(std::string_view word) {
  std::string w;
  for (char c : word) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view prefix : {"torch.", "np.", "numpy.", "jnp.", "tf."}) {
    if (w.starts_with(prefix)) w.erase(0, prefix.size());
  }
  static const std::vector<std::pair<std::vector<std::string_view>, std::string_view>> kMeanings = {
      {{"float16", "fp16", "f16", "half", "float16_t"}, "float16"},
      {{"bfloat16", "bf16", "bfloat", "brain"}, "bfloat16"},
      {{"float32", "fp32", "f32", "float", "single", "float32_t"}, "float32"},
      {{"float64", "fp64", "f64", "double", "float64_t"}, "float64"},
      {{"complex64", "c64", "cfloat", "complex"}, "complex64"},
      {{"complex128", "c128", "cdouble"}, "complex128"},
      {{"int8", "i8", "char"}, "int8"},
      {{"uint8", "u8", "byte"}, "uint8"},
      {{"int16", "i16", "short"}, "int16"},
      {{"int32", "i32", "int"}, "int32"},
      {{"int64", "i64", "long"}, "int64"},
      {{"bool", "bool_", "boolean"}, "bool"}};
  for (const auto& [spellings, dtype] : kMeanings) {
    if (std::find(spellings.begin(), spellings.end(), w) != spellings.end()) {
      return std::string(dtype);
    }
  }
  return std::nullopt;
}

}  // namespace mudjack::util
