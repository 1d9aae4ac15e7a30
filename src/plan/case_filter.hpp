#pragma once
// Case-id filters (`--filter`, the API's `filter`): RE2 syntax
// (https://github.com/google/re2/wiki/Syntax), matched anywhere in the id.
// RE2 never backtracks: a match takes time linear in the id's length, whatever
// the pattern, so a hostile pattern ("(a+)+$") cannot stall the CLI or a
// server worker; its compiled size is bounded too. Backreferences and
// lookaround, which need backtracking, are refused as bad patterns.
//
// Immutable after construction; matches() may be called from any thread.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace mudjack::plan {

// One line saying why `pattern` is not a usable filter (RE2's reason, with
// control characters escaped); nullopt when it is. "" is usable (every id).
std::optional<std::string> filter_error(const std::string& pattern);

class CaseFilter {
 public:
  // `pattern` should pass filter_error(); "" matches every id. FatalError
  // "bad filter regex: ..." otherwise.
  explicit CaseFilter(const std::string& pattern);
  bool matches(std::string_view case_id) const;

 private:
  std::shared_ptr<const re2::RE2> re_;  // null: matches everything
};

}  // namespace mudjack::plan
