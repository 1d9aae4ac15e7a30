#pragma once
// intolerable.toml: when a latency ratio (device median over baseline
// median, with 95% confidence) makes a function's verdict
// `intolerable_latency`. The paper's headline cut-off, 10x, is the default.
//
//   default = 10.0                      # every function, every device pair
//
//   [functions]                         # per function, as the suite names it
//   "torch.nn.Transformer" = 20.0
//
//   [[pairs]]                           # per device pair, optionally per function
//   baseline = "cpu"
//   device = "cuda:0"
//   function = "jax.numpy.linalg.svd"   # optional: omitted = every function
//   ratio = 50.0
//
// Every ratio must be a number > 1; unknown keys are errors.

#include <filesystem>
#include <optional>

#include "verdict/verdict.hpp"

namespace mudjack::verdict {

// Reads `path` into the thresholds of `options` (its baseline is kept).
// FatalError naming the file and the entry for anything malformed.
Options load_intolerable(const std::filesystem::path& path, Options options);

// --intolerable FILE if given (must exist), else ./intolerable.toml if it
// exists, else the defaults.
Options thresholds_for(const std::optional<std::filesystem::path>& explicit_path, Options options);

// The options a run is judged with: its baseline device and the thresholds
// of thresholds_for(intolerable). FatalError for a bad thresholds file.
Options options_for(const std::string& baseline,
                    const std::optional<std::filesystem::path>& intolerable);

}  // namespace mudjack::verdict
