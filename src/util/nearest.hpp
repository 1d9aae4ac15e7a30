#pragma once
// "Did you mean …?": the known word nearest to a mistyped one.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mudjack::util {

// Levenshtein distance (insertions, deletions, substitutions).
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` within `max_distance` edits (ties: the
// first), or nullopt.
std::optional<std::string> nearest(std::string_view word,
                                   const std::vector<std::string>& candidates,
                                   size_t max_distance = 2);

}  // namespace mudjack::util
