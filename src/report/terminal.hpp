#pragma once
// The table a person sees at the end of `run` and `merge`: functions per
// verdict for each (framework, device), then where the reports are. A
// rendering of the judged run; pure and thread-safe.

#include <filesystem>
#include <string>

#include "verdict/judged.hpp"

namespace mudjack::report {

std::string to_terminal(const verdict::Judged& judged, const std::filesystem::path& run_dir);

}  // namespace mudjack::report
