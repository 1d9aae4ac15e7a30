#pragma once
// `mudjack check`'s table on a terminal, in the words of the Python API's
// (python/mudjack/__init__.py, CheckResult.__str__): one row per case, led by
// the function or model it checks (NAME, or each model a script calls);
// CHECKED is how a pass was checked, in the words of summary.md, report.html,
// results.csv and the Python API (model::Check); the error in eps beside its bound
// ("12 / 64"), the median (in brackets where the timing is unstable) and the
// spread as slowest over fastest ("×1.80"), never a percent. Under a row that
// did not pass, why; under a failure, the `mudjack repro` line that writes
// it as a script. Pure.

#include <cstddef>
#include <filesystem>
#include <string>

#include "verdict/judged.hpp"

namespace mudjack::cli {

// Whether case `i` of `judged` is a failure: not a pass or a skip, and
// neither refused as `unsupported` (outside the function's domain) nor in a
// dtype the framework lacks there (verdict::unsupported_reason).
bool check_failed(const verdict::Judged& judged, size_t i);

// The command that writes case `i` as a script, as the Python API's
// CheckResult.repro_command writes it: "mudjack repro CASE_ID --device DEV
// --run RUN_ID --out RESULTS_DIR", each word shell-quoted.
std::string repro_command(const verdict::Judged& judged, size_t i,
                          const std::filesystem::path& results_dir);

// The table, header first, each line ending in "\n"; `results_dir` (the
// folder holding mudjack.db) goes into the repro lines as it is given.
std::string check_table_text(const verdict::Judged& judged,
                             const std::filesystem::path& results_dir);

}  // namespace mudjack::cli
