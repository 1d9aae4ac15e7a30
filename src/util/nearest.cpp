#include "util/nearest.hpp"

#include <algorithm>
#include <cstdint>

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

}  // namespace mudjack::util
