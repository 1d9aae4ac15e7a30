#pragma once
// Retention of a run's saved outputs (the .npy files under
// <run>/artifacts/): the oracle reads them while the run executes, repro
// reads the baseline's when it writes a script. A paper run saves gigabytes;
// once the run is complete, `keep` says what stays:
//   failing (default)  every output (each device, references included) of a
//                      case that did not pass on some device: what the
//                      oracle's findings and `repro` need
//   all                everything
//   none               nothing (the artifacts folder is removed)
// An incomplete run keeps everything: a resumed run's oracle compares with
// outputs already saved.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"

namespace mudjack::run {

enum class Keep { kFailing, kAll, kNone };

inline constexpr std::string_view kKeepNames = "failing, all, none";
std::optional<Keep> parse_keep(std::string_view name);
std::string_view to_string(Keep keep);

struct Pruned {
  int64_t files = 0;
  int64_t bytes = 0;
};

// Removes the outputs `keep` does not keep, from `results` (one run's) and
// the run's artifacts folder. Files that cannot be removed are left, never
// an error.
Pruned prune_outputs(const std::filesystem::path& run_dir,
                     const std::vector<model::CaseResult>& results, Keep keep);

// Bytes under `dir` (0 when absent).
int64_t disk_bytes(const std::filesystem::path& dir);

}  // namespace mudjack::run
