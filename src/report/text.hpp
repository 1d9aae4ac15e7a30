#pragma once
// Text helpers shared by the report views (internal to report/): decoding
// UTF-8 and repairing text that came from a probe (stderr tails, exception
// messages) before a view writes it. Pure and thread-safe.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace mudjack::report {

// Decodes the UTF-8 sequence starting at s[i] (i < s.size()). Returns the code
// point and the sequence length, or {-1, 1} for an invalid, overlong or
// truncated sequence or an encoded surrogate.
std::pair<long, size_t> decode_utf8(std::string_view s, size_t i);

// `s` with every invalid UTF-8 sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view s);

}  // namespace mudjack::report
