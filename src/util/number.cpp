#include "util/number.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace mudjack::util {

namespace {

std::string number_text(double x) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.15g", x);
  return text;
}

// The input as echoed in an error: printable ASCII kept, anything else as
// '?', cut at 40 characters, so a hostile value cannot flood the one line.
std::string echo(std::string_view text) {
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  if (text.size() > 40)
    out += "...' (" + std::to_string(text.size()) + " characters)";
  else
    out += "'";
  return out;
}

bool digit(char c) {
  return c >= '0' && c <= '9';
}

// Digits from `i`; returns how many.
size_t digits(std::string_view s, size_t& i) {
  const size_t start = i;
  while (i < s.size() && digit(s[i])) ++i;
  return i - start;
}

// -?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)? by hand: no locale, no regex.
bool real_syntax(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  if (digits(s, i) == 0) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits(s, i) == 0) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits(s, i) == 0) return false;
  }
  return i == s.size();
}

bool int_syntax(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  return digits(s, i) > 0 && i == s.size();
}

// The finite double `s` spells (syntax already checked), or nullopt when it
// overflows or underflows a double (from_chars: result_out_of_range) or lands
// among the subnormals, which no flag needs and which lose digits.
std::optional<double> to_double(std::string_view s) {
  double x = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(x) ||
      std::fpclassify(x) == FP_SUBNORMAL) {
    return std::nullopt;
  }
  return x;
}

}  // namespace

std::string describe(const Range& range) {
  return std::string(range.low_inclusive ? "at least " : "more than ") + number_text(range.low) +
         " and at most " + number_text(range.high);
}

std::string describe(const IntRange& range) {
  return "between " + std::to_string(range.low) + " and " + std::to_string(range.high);
}

std::optional<std::string> out_of_range(std::string_view name, double value, const Range& range) {
  const bool above_low = range.low_inclusive ? value >= range.low : value > range.low;
  if (std::isfinite(value) && above_low && value <= range.high) return std::nullopt;
  return std::string(name) + " must be " + describe(range) + ", got " + number_text(value);
}

std::optional<std::string> out_of_range(std::string_view name, int64_t value,
                                        const IntRange& range) {
  if (value >= range.low && value <= range.high) return std::nullopt;
  return std::string(name) + " must be " + describe(range) + ", got " + std::to_string(value);
}

ParsedReal parse_real(std::string_view name, std::string_view text, const Range& range) {
  const auto refuse = [&] {
    return ParsedReal{std::nullopt, std::string(name) + " must be a decimal number " +
                                        describe(range) + ", got " + echo(text)};
  };
  if (text.size() > kMaxNumberChars || !real_syntax(text)) return refuse();
  const auto x = to_double(text);
  if (!x) return refuse();
  if (auto why = out_of_range(name, *x, range)) return {std::nullopt, *why};
  return {x, ""};
}

ParsedInt parse_int(std::string_view name, std::string_view text, const IntRange& range) {
  const auto refuse = [&] {
    return ParsedInt{std::nullopt, std::string(name) + " must be an integer " + describe(range) +
                                       ", got " + echo(text)};
  };
  if (text.size() > kMaxNumberChars || !int_syntax(text)) return refuse();
  int64_t x = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec != std::errc() || end != text.data() + text.size()) return refuse();  // overflow
  if (auto why = out_of_range(name, x, range)) return {std::nullopt, *why};
  return {x, ""};
}

ParsedReal parse_duration_s(std::string_view name, std::string_view text, const Range& range) {
  const auto refuse = [&] {
    return ParsedReal{std::nullopt, std::string(name) +
                                        " must be a duration such as 90s, 10m, 1h or 1h30m, " +
                                        describe(range) + " seconds, got " + echo(text)};
  };
  if (text.empty() || text.size() > kMaxNumberChars) return refuse();
  double total = 0;
  size_t i = 0;
  size_t next_unit = 0;  // index into "hms": units in that order, each once
  constexpr std::string_view kUnits = "hms";
  constexpr double kSeconds[] = {3600, 60, 1};
  while (i < text.size()) {
    size_t end = i;
    while (end < text.size() && (digit(text[end]) || text[end] == '.')) ++end;
    const auto number = text.substr(i, end - i);
    if (!real_syntax(number)) return refuse();
    const auto x = to_double(number);
    if (!x) return refuse();
    size_t unit = kUnits.size() - 1;  // a bare number is seconds, and must come last
    if (end < text.size()) {
      unit = kUnits.find(text[end]);
      if (unit == std::string_view::npos) return refuse();
      ++end;
    } else if (next_unit == kUnits.size()) {
      return refuse();
    }
    if (unit < next_unit) return refuse();
    next_unit = unit + 1;
    total += *x * kSeconds[unit];
    i = end;
  }
  if (out_of_range(name, total, range)) return refuse();
  return {total, ""};
}

}  // namespace mudjack::util
