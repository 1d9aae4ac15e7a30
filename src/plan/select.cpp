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
    // A dtype is suggested by what it means (fp16: float16, not int16).
    const auto meant = flag == "--dtype" ? util::dtype_meaning(w) : std::nullopt;
    if (meant && present.contains(*meant)) {
      why += "; did you mean " + *meant + "?";
    } else if (meant) {
      std::string known;
      for (const auto& p : present) known += (known.empty() ? "" : ", ") + p;
      why += " (" + w + " is " + *meant + ", which none has; here: " + known + ")";
    } else if (auto near = util::nearest(w, {present.begin(), present.end()}, 3)) {
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

// Whether the case carries every wanted label ("key::value", the value a glob).
bool has_labels(const model::CaseInfo& c, const std::vector<std::string>& wanted) {
  return std::all_of(wanted.begin(), wanted.end(), [&](const std::string& w) {
    return std::any_of(c.tags.begin(), c.tags.end(),
                       [&](const std::string& t) { return glob(w, t); });
  });
}

// A --labels value must be key::value, and some listed case must carry it.
void check_labels(const std::vector<model::CaseInfo>& cases,
                  const std::vector<std::string>& wanted) {
  std::set<std::string> known;
  for (const auto& c : cases) {
    for (const auto& t : c.tags) {
      if (t.find("::") != std::string::npos) known.insert(t);
    }
  }
  for (const auto& w : wanted) {
    const auto sep = w.find("::");
    if (sep == std::string::npos || sep == 0 || sep + 2 == w.size()) {
      throw util::FatalError("--labels " + w + ": a label is key::value (task::Computer_Vision)");
    }
    if (std::any_of(known.begin(), known.end(), [&](const auto& k) { return glob(w, k); })) {
      continue;
    }
    std::string msg = "--labels " + w + ": no listed case has this label";
    if (known.empty()) {
      msg += " (the selected suites' cases have no labels; the models suite's do)";
    } else if (auto near = util::nearest(w, {known.begin(), known.end()}, 4)) {
      msg += "; did you mean " + *near + "?";
    }
    throw util::FatalError(msg);
  }
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
    if (std::find(model::kModes.begin(), model::kModes.end(), m) == model::kModes.end()) {
      throw util::FatalError("--mode " + m + ": a mode is " + model::modes_text());
    }
  }
  check_labels(cases, fields.labels);
  check_known("--dtype", fields.dtypes, dtypes, false);
  check_known("--mode", fields.modes, modes, false);
  check_known("--function", fields.functions, functions, true);
  std::vector<model::CaseInfo> out;
  for (const auto& c : cases) {
    if (any_of(fields.dtypes, c.dtype, false) && any_of(fields.modes, c.mode, false) &&
        any_of(fields.functions, c.function, true) && has_labels(c, fields.labels)) {
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
    // A failure, the framework's or the suite's own (error: judged false).
    if (model::props(r.outcome).failure || !model::props(r.outcome).judged) ids.insert(r.info.id);
  }
  return ids;
}

}  // namespace mudjack::plan
