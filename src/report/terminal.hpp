#pragma once
// The table a person sees at the end of `run` and `merge`: functions per
// verdict for each (framework, device), the short summary of what did not
// pass, then where the reports are. A rendering of the judged run; pure and
// thread-safe.

#include <cstddef>
#include <filesystem>
#include <string>

#include "verdict/judged.hpp"

namespace mudjack::report {

// Rows the short summary lists before "... and N more".
inline constexpr size_t kShortSummaryRows = 40;

// What did not pass, as pytest's short summary: the suite's own errors
// (outcome error, with the traceback's last lines), then every function
// whose verdict is a failure, a divergence, intolerable latency or
// unverified, worst first, each with its first error (outcome, kind,
// message, case id). At most `limit` rows of each part; "" when everything
// passed.
std::string short_summary(const verdict::Judged& judged, size_t limit);

std::string to_terminal(const verdict::Judged& judged, const std::filesystem::path& run_dir);

}  // namespace mudjack::report
