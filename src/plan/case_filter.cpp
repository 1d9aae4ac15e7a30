#include "plan/case_filter.hpp"

#include <re2/re2.h>

#include <cstdio>

#include "util/error.hpp"

namespace mudjack::plan {
namespace {

// RE2's default program budget: a pattern that needs more is refused.
constexpr int64_t kMaxProgramBytes = int64_t{8} << 20;

std::shared_ptr<const re2::RE2> compile(const std::string& pattern) {
  re2::RE2::Options options;
  options.set_log_errors(false);  // errors are ours to word, never printed by RE2
  options.set_max_mem(kMaxProgramBytes);
  return std::make_shared<const re2::RE2>(pattern, options);
}

// Control characters escaped, so a message stays one line.
std::string one_line(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> filter_error(const std::string& pattern) {
  if (pattern.empty()) return std::nullopt;
  auto re = compile(pattern);
  if (re->ok()) return std::nullopt;
  return one_line(re->error());
}

CaseFilter::CaseFilter(const std::string& pattern) {
  if (pattern.empty()) return;
  re_ = compile(pattern);
  if (!re_->ok()) {
    throw util::FatalError("bad filter regex: " + one_line(re_->error()));
  }
}

bool CaseFilter::matches(std::string_view case_id) const {
  return !re_ || re2::RE2::PartialMatch(re2::StringPiece(case_id.data(), case_id.size()), *re_);
}

}  // namespace mudjack::plan
