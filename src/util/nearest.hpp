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

// The dtype a common spelling of it means, by meaning rather than by letters:
// "fp16", "half", "torch.float16" -> "float16"; "bf16" -> "bfloat16";
// "fp32", "float", "single" -> "float32"; "fp64", "double" -> "float64";
// "long" -> "int64"; nullopt for a word it does not know (case-insensitive).
std::optional<std::string> dtype_meaning(std::string_view word);

}  // namespace mudjack::util
