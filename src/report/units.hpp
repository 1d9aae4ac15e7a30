#pragma once
// Numbers as every view says them: `mudjack check`'s and `mudjack run`'s
// tables, the progress line, summary.md, report.html and the Python API
// (python/mudjack/__init__.py: _duration, _eps, _noise, with the same
// thresholds and digits). Pure.

#include <optional>
#include <string>

namespace mudjack::report {

// A duration in nanoseconds: whole ns below a microsecond, us and ms to one
// decimal, s to two ("340 ns", "1.2 us", "44.0 ms", "2.15 s"); "-" when it
// is not finite.
std::string duration_text(double ns);

// An error in eps beside the bound it was held to, "12 / 64", with digits
// enough to tell an error beyond its bound from the bound (oracle::told_apart:
// "6.0004 / 6"); "- / 64" without an error, "12" without a bound, "-" with
// neither. The unit (eps) is the caller's: a column head, or appended.
std::string eps_over_bound(const std::optional<double>& error, const std::optional<double>& bound);

// A timing's spread as slowest over fastest after a multiplication sign:
// "×1.80" (two decimals below 10, one below 100, none above), "×inf" where
// the fastest took no time.
std::string spread_ratio_text(double ratio);

}  // namespace mudjack::report
