#pragma once
// Numbers from people and files: the one parser behind every numeric flag of
// the CLI (cli/numbers.hpp), the ranges they are checked against (the run
// options', run/options.hpp, are instances), and the range check used for the
// numeric fields of files that arrive already parsed (mudjack.toml, a POST
// body, a fuzz graph).
//
// What is accepted is deliberately narrow, the same for every flag: ASCII
// decimal digits only, an optional leading '-', and for reals an optional
// fraction and exponent. Refused, each with one line that names the input and
// its accepted range: empty or blank text, spaces, '+', hex ("0x10"), "nan",
// "inf", digits of other scripts ("٣"), a value that overflows or underflows
// a double ("1e309", "1e-400"), and text longer than kMaxNumberChars (a
// 50,000-digit number is refused before any conversion looks at it).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mudjack::util {

struct Range {
  double low;
  double high;
  bool low_inclusive;  // [low, high] when true, else (low, high]
};
struct IntRange {
  int64_t low;
  int64_t high;
};

// Longer text is refused unread: no number a flag takes needs more.
inline constexpr size_t kMaxNumberChars = 64;

// "more than 0 and at most 86400"; "between 1 and 20".
std::string describe(const Range& range);
std::string describe(const IntRange& range);

// One line naming `name` as the user wrote it ("--timeout-s",
// "run.timeout_s", "'timeout_s'") when `value` is not a finite number in
// `range`: "--timeout-s must be more than 0 and at most 86400, got inf";
// nullopt when it is.
std::optional<std::string> out_of_range(std::string_view name, double value, const Range& range);
// "'seed' must be between 0 and 9223372036854775807, got -1".
std::optional<std::string> out_of_range(std::string_view name, int64_t value,
                                        const IntRange& range);

// Text to a number in `range`, or the one line that says why not, naming
// `name` and the range: out_of_range()'s line for a number outside it, else
// "--x must be a decimal number more than 0 and at most 86400, got 'nan'". Never throws, never
// recurses, linear in min(text.size(), kMaxNumberChars).
struct ParsedReal {
  std::optional<double> value;
  std::string error;  // set when value is empty
};
struct ParsedInt {
  std::optional<int64_t> value;
  std::string error;
};
ParsedReal parse_real(std::string_view name, std::string_view text, const Range& range);
ParsedInt parse_int(std::string_view name, std::string_view text, const IntRange& range);

// A duration in seconds: "90", "90s", "10m", "1h", "1.5h", "1h30m", "2m30s"
// (hours, minutes, seconds in that order, each at most once, each a number
// as parse_real reads it), in `range` (seconds).
ParsedReal parse_duration_s(std::string_view name, std::string_view text, const Range& range);

}  // namespace mudjack::util
