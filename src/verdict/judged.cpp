#include "verdict/judged.hpp"

#include <algorithm>

namespace mudjack::verdict {
namespace {

Tally empty_tally() {
  Tally t;
  for (auto o : model::kOutcomes) t.outcomes[o] = 0;
  for (auto v : model::kVerdicts) t.verdicts[v] = 0;
  for (auto r : kPaperReasons) t.reasons[std::string(r)] = 0;
  return t;
}

Tally& tally_of(Judged& j, const std::string& framework, const std::string& device) {
  auto& by_device = j.tallies[framework];
  auto it = by_device.find(device);
  if (it == by_device.end()) it = by_device.emplace(device, empty_tally()).first;
  return it->second;
}

void count(Judged& j) {
  for (const auto& r : j.cases) {
    auto& t = tally_of(j, r.info.framework, r.device);
    ++t.cases;
    ++t.outcomes[r.outcome];
    if (auto reason = paper_reason(r); !reason.empty()) ++t.reasons[std::string(reason)];
  }
  for (const auto& v : j.verdicts) {
    auto& t = tally_of(j, v.framework, v.device);
    ++t.functions;
    ++t.verdicts[v.verdict];
  }
}

}  // namespace

bool Tally::any_reason() const {
  return std::any_of(reasons.begin(), reasons.end(), [](const auto& kv) { return kv.second > 0; });
}

const CaseRatio* Judged::ratio_of(const model::CaseResult& r) const {
  auto it = ratios.find({r.info.id, r.device});
  return it == ratios.end() ? nullptr : &it->second;
}

model::Check own_check(const model::CaseResult& r) {
  if (r.outcome != model::Outcome::kPass) return model::Check::kNone;
  const auto checks = r.extra.find("checks");
  if (checks != r.extra.end() && checks->is_array() && !checks->empty() &&
      std::all_of(checks->begin(), checks->end(),
                  [](const nlohmann::json& c) { return c.is_object() && c.value("ok", false); })) {
    return model::Check::kProperty;
  }
  return model::Check::kNone;
}

std::vector<model::Check> checks_of(const std::vector<model::CaseResult>& results) {
  std::vector<model::Check> out;
  out.reserve(results.size());
  std::map<std::pair<std::string, std::string>, model::Check> own;
  for (const auto& r : results) {
    out.push_back(own_check(r));
    own[{r.info.id, r.device}] = out.back();
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (out[i] != model::Check::kNone || r.outcome != model::Outcome::kPass ||
        r.numeric.compared_with.empty()) {
      continue;
    }
    auto base = own.find({r.info.id, r.numeric.compared_with});
    if (base != own.end() && base->second != model::Check::kNone) out[i] = model::Check::kBaseline;
  }
  return out;
}

Judged assemble(model::RunInfo run, std::vector<model::CaseResult> cases,
                std::vector<model::VerdictRow> verdicts, const Options& options) {
  Judged j;
  j.run = std::move(run);
  j.cases = std::move(cases);
  j.verdicts = std::move(verdicts);
  j.options = options;
  j.ratios = case_ratios(j.cases, options);
  count(j);
  j.checked = checks_of(j.cases);
  return j;
}

Judged judge(model::RunInfo run, std::vector<model::CaseResult> cases, const Options& options) {
  auto verdicts = compute(cases, options);
  return assemble(std::move(run), std::move(cases), std::move(verdicts), options);
}

}  // namespace mudjack::verdict
