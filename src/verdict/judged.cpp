#include "verdict/judged.hpp"

#include <algorithm>

namespace mudjack::verdict {
namespace {

Tally empty_tally() {
  Tally t;
  for (auto o : model::kOutcomes) t.outcomes[o] = 0;
  for (auto v : model::kVerdicts) t.verdicts[v] = 0;
  for (auto r : kPaperReasons) t.reasons[std::string(r)] = 0;
  for (auto c : model::kCauses) t.divergent_causes[c] = 0;
  return t;
}

Tally& tally_of(Judged& j, const std::string& framework, const std::string& device) {
  auto& by_device = j.tallies[framework];
  auto it = by_device.find(device);
  if (it == by_device.end()) it = by_device.emplace(device, empty_tally()).first;
  return it->second;
}

void count(Judged& j) {
  for (size_t i = 0; i < j.cases.size(); ++i) {
    const auto& r = j.cases[i];
    auto& t = tally_of(j, r.info.framework, r.device);
    ++t.cases;
    if (j.refusals[i].refusal == model::Refusal::kKernelMissing && j.refusals[i].documented) {
      ++t.kernel_missing_documented;
    }
    ++t.outcomes[r.outcome];
    if (auto reason = paper_reason(r); !reason.empty()) ++t.reasons[std::string(reason)];
  }
  for (const auto& v : j.verdicts) {
    auto& t = tally_of(j, v.framework, v.device);
    ++t.functions;
    ++t.verdicts[v.verdict];
    if (!v.successor.empty()) {
      ++t.listed_missing;
      if (v.successor_verdict == model::Verdict::kPortable) ++t.successor_portable;
    }
    if (v.verdict == model::Verdict::kDivergent) ++t.divergent_causes[v.cause()];
    if (!v.unsupported.empty()) ++t.unsupported_functions;
    for (const auto& u : v.unsupported) t.unsupported_cases += u.cases;
    if (!v.kernel_missing.empty()) ++t.kernel_missing_functions;
    for (const auto& k : v.kernel_missing) t.kernel_missing_cases += k.cases;
  }
  for (const auto& g : j.gaps) ++tally_of(j, g.framework, g.device).gaps;
}

}  // namespace

bool Tally::any_reason() const {
  return std::any_of(reasons.begin(), reasons.end(), [](const auto& kv) { return kv.second > 0; });
}

const CaseRatio* Judged::ratio_of(const model::CaseResult& r) const {
  auto it = ratios.find({r.info.id, r.device});
  return it == ratios.end() ? nullptr : &it->second;
}

namespace {

// A mismatch the oracle gave no cause, where one of the case's own checks
// failed: the check's verdict, own_check.
void name_own_check_causes(std::vector<model::CaseResult>& cases) {
  for (auto& r : cases) {
    if (r.outcome != model::Outcome::kMismatch || r.numeric.cause != model::Cause::kNone) continue;
    const auto checks = r.extra.find("checks");
    if (checks == r.extra.end() || !checks->is_array()) continue;
    if (std::any_of(checks->begin(), checks->end(), [](const nlohmann::json& c) {
          return c.is_object() && c.contains("ok") && c["ok"] == false;
        })) {
      r.numeric.cause = model::Cause::kOwnCheck;
    }
  }
}

Judged assemble_checked(model::RunInfo run, std::vector<model::CaseResult> cases,
                        std::vector<model::VerdictRow> verdicts, std::vector<model::Check> checked,
                        const Options& options) {
  Judged j;
  j.run = std::move(run);
  j.cases = std::move(cases);
  j.verdicts = std::move(verdicts);
  j.options = options;
  j.ratios = case_ratios(j.cases, options);
  j.gaps = portability_gaps(j.cases, options);
  j.unreached = unreached_gaps(j.cases, options);
  j.refusals.reserve(j.cases.size());
  for (const auto& r : j.cases) j.refusals.push_back(refusal_of(r));
  count(j);
  j.checked = std::move(checked);
  j.claims = verdict::claims(j.cases);
  if (!verdict::worth_showing(j.claims)) j.claims.clear();
  j.kernels = verdict::kernel_rows(j.cases);
  j.fallbacks = verdict::fallback_rows(j.cases);
  return j;
}

}  // namespace

Judged assemble(model::RunInfo run, std::vector<model::CaseResult> cases,
                std::vector<model::VerdictRow> verdicts, const Options& options) {
  name_own_check_causes(cases);
  auto checked = checks_of(cases);
  return assemble_checked(std::move(run), std::move(cases), std::move(verdicts), std::move(checked),
                          options);
}

Judged judge(model::RunInfo run, std::vector<model::CaseResult> cases, const Options& options) {
  name_own_check_causes(cases);
  auto checked = checks_of(cases);
  auto verdicts = compute(cases, checked, options);
  return assemble_checked(std::move(run), std::move(cases), std::move(verdicts), std::move(checked),
                          options);
}

}  // namespace mudjack::verdict
