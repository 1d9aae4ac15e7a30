#include "verdict/expected.hpp"

#include <fnmatch.h>

#include <fstream>
#include <sstream>

#include "util/error.hpp"

namespace mudjack::verdict {
namespace {

bool matches(const Expected& e, const std::string& case_id, const std::string& device) {
  return (e.device.empty() || e.device == device) &&
         ::fnmatch(e.pattern.c_str(), case_id.c_str(), 0) == 0;
}

}  // namespace

std::vector<Expected> read_expected(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw util::FatalError("cannot read expected-failures file " + file.string());
  std::vector<Expected> out;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (auto hash = text.find('#'); hash != std::string::npos) text.resize(hash);
    std::istringstream fields(text);
    Expected e;
    e.line = line;
    if (!(fields >> e.pattern)) continue;
    fields >> e.device;
    std::string extra;
    if (fields >> extra) {
      throw util::FatalError(file.string() + ":" + std::to_string(line) +
                             ": expected 'CASE_ID [DEVICE]', got a third field '" + extra + "'");
    }
    out.push_back(e);
  }
  return out;
}

bool is_expected(const std::vector<Expected>& expected, const model::CaseResult& r) {
  for (const auto& e : expected) {
    if (matches(e, r.info.id, r.device)) return true;
  }
  return false;
}

ExpectedReport check_expected(const std::vector<Expected>& expected,
                              const std::vector<model::CaseResult>& results) {
  ExpectedReport report;
  for (const auto& r : results) {
    if (!is_expected(expected, r)) continue;
    if (model::props(r.outcome).failure) report.still_failing.push_back(&r);
    if (r.outcome == model::Outcome::kPass) report.passing.push_back(&r);
  }
  return report;
}

bool all_expected(const std::vector<Expected>& expected, const model::VerdictRow& row) {
  if (row.failing.empty() && row.mismatching.empty()) return false;
  for (const auto* ids : {&row.failing, &row.mismatching}) {
    for (const auto& id : *ids) {
      bool listed = false;
      for (const auto& e : expected) listed = listed || matches(e, id, row.device);
      if (!listed) return false;
    }
  }
  return true;
}

}  // namespace mudjack::verdict
