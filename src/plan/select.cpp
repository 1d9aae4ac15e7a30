#include "plan/select.hpp"

#include <fnmatch.h>

#include <algorithm>

#include "util/error.hpp"
#include "util/nearest.hpp"

namespace mudjack::plan {
namespace {

bool glob(const std::string& pattern, const std::string& text) {
  return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

// Every value of `wanted` must select some case: a typo is an error, never
// an empty (or silently narrower) run.
void check_known(const std::string& flag, const std::vector<std::string>& wanted,
                 const std::set<std::string>& present, bool globs) {
  for (const auto& w : wanted) {
    const bool found = globs ? std::any_of(present.begin(), present.end(),
                                           [&](const auto& p) { return glob(w, p); })
                             : present.contains(w);
    if (found) continue;
    std::string why = flag + " " + w + ": no listed case has it";
    if (auto near = util::nearest(w, {present.begin(), present.end()}, 3)) {
      why += "; did you mean " + *near + "?";
    } else if (present.size() <= 12) {
      std::string known;
      for (const auto& p : present) known += (known.empty() ? "" : ", ") + p;
      why += " (here: " + known + ")";
    }
    throw util::FatalError(why);
  }
}

bool any_of(const std::vector<std::string>& wanted, const std::string& value, bool globs) {
  if (wanted.empty()) return true;
  return std::any_of(wanted.begin(), wanted.end(),
                     [&](const auto& w) { return globs ? glob(w, value) : w == value; });
}

}  // namespace

std::vector<model::CaseInfo> select(const std::vector<model::CaseInfo>& cases,
                                    const Fields& fields) {
  if (fields.empty()) return cases;
  std::set<std::string> dtypes;
  std::set<std::string> modes;
  std::set<std::string> functions;
  for (const auto& c : cases) {
    dtypes.insert(c.dtype);
    modes.insert(c.mode);
    functions.insert(c.function);
  }
  for (const auto& m : fields.modes) {
    if (m != "eager" && m != "compiled") {
      throw util::FatalError("--mode " + m + ": a mode is eager or compiled");
    }
  }
  check_known("--dtype", fields.dtypes, dtypes, false);
  check_known("--mode", fields.modes, modes, false);
  check_known("--function", fields.functions, functions, true);
  std::vector<model::CaseInfo> out;
  for (const auto& c : cases) {
    if (any_of(fields.dtypes, c.dtype, false) && any_of(fields.modes, c.mode, false) &&
        any_of(fields.functions, c.function, true)) {
      out.push_back(c);
    }
  }
  return out;
}

std::vector<model::CaseInfo> only(const std::vector<model::CaseInfo>& cases,
                                  const std::set<std::string>& ids) {
  std::vector<model::CaseInfo> out;
  for (const auto& c : cases) {
    if (ids.contains(c.id)) out.push_back(c);
  }
  return out;
}

std::set<std::string> failed_ids(const std::vector<model::CaseResult>& results) {
  std::set<std::string> ids;
  for (const auto& r : results) {
    if (model::is_failure(r.outcome) || r.outcome == model::Outcome::kError) ids.insert(r.info.id);
  }
  return ids;
}

}  // namespace mudjack::plan
