#include "verdict/verdict.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "model/extra.hpp"
#include "stats/stats.hpp"
#include "stats/timing.hpp"
#include "verdict/claims.hpp"
#include "verdict/refusal.hpp"

namespace mudjack::verdict {
namespace {

using model::CaseResult;
using model::Outcome;
using model::Verdict;

// Relative slack when comparing a ratio with its threshold (see the header).
constexpr double kThresholdSlack = 1e-9;

// The median latency of a case that ran and was timed, if it can enter a ratio.
std::optional<double> timed_median_ns(const CaseResult& r) {
  if (!model::props(r.outcome).ran || !r.latency.stats || !(r.latency.stats->median_ns > 0)) {
    return std::nullopt;
  }
  return r.latency.stats->median_ns;
}

std::string format_g(const char* format, double v) {
  std::array<char, 64> buf{};
  const int n = std::snprintf(buf.data(), buf.size(), format, v);
  return std::string(buf.data(), static_cast<size_t>(n));
}

// "14.2x": three significant digits, whole numbers from 1000 up, and more
// digits if three would print a ratio that differs from the threshold as equal.
std::string format_ratio(double ratio, double threshold) {
  std::string s = ratio >= 1000 ? format_g("%.0f", ratio) : format_g("%.3g", ratio);
  if (s == format_g("%g", threshold) && ratio != threshold) {
    s = format_g("%.6g", ratio);
  }
  return s + "x";
}

// Label of a failed case in a reason: kernel_missing where the refusal rule
// says so, the error kind of another fail, else the outcome ("crash",
// "timeout").
std::string failure_label(const CaseResult& r) {
  if (r.outcome == Outcome::kFail) {
    if (refusal_of(r).refusal == model::Refusal::kKernelMissing) {
      return std::string(model::to_string(model::Refusal::kKernelMissing));
    }
    const std::string_view kind = model::to_string(r.error.kind);
    return kind.empty() ? "fail" : std::string(kind);
  }
  return std::string(model::to_string(r.outcome));
}

// "not_implemented x2, crash x1": most frequent first, then by name.
// Over the row's failing cases only (row.failing: those that failed on every
// device count apart).
std::string failure_breakdown(const std::vector<const CaseResult*>& cases,
                              const model::VerdictRow& row) {
  std::map<std::string, int> counts;
  for (const CaseResult* r : cases) {
    if (model::props(r->outcome).failed &&
        std::binary_search(row.failing.begin(), row.failing.end(), r->info.id)) {
      ++counts[failure_label(*r)];
    }
  }
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string s;
  for (const auto& [label, n] : sorted) {
    if (!s.empty()) {
      s += ", ";
    }
    s += label + " x" + std::to_string(n);
  }
  return s;
}

struct Counts {
  int cases = 0;
  int passed = 0;
  int unchecked = 0;  // passes checked by nothing
  int attempted = 0;
  int failed = 0;
  int mismatched = 0;
  int unavailable = 0;
  int skipped = 0;
  int unsupported = 0;  // failed where the dtype is not claimed: never failures
};

std::string first_line_of(const std::string& s, size_t max_chars = 160) {
  return s.substr(0, std::min(s.find('\n'), max_chars));
}

// "diverged (2 full_precision, 1 baseline_wrong)".
std::string diverged_text(const model::VerdictRow& row) {
  std::string parts;
  for (auto c : model::kCauses) {
    auto it = row.causes.find(c);
    if (it == row.causes.end() || it->second == 0) continue;
    parts += (parts.empty() ? "" : ", ") + std::to_string(it->second) + " " +
             std::string(model::to_string(c));
  }
  return "diverged (" + parts + ")";
}

// "3 of 5 passes checked by nothing".
std::string unchecked_text(const Counts& n) {
  return std::to_string(n.unchecked) + " of " + std::to_string(n.passed) +
         (n.passed == 1 ? " pass" : " passes") + " checked by nothing";
}

// "2 unsupported (bfloat16: outside the domain ...; float16: ...)", and
// likewise "kernel_missing (complex64: kernel missing on cuda ...)".
std::string refused_text(const std::vector<model::Refused>& refused, std::string_view word) {
  int cases = 0;
  std::string parts;
  for (const auto& u : refused) {
    cases += u.cases;
    parts += (parts.empty() ? "" : "; ") + u.dtype + ": " + u.reason;
  }
  return std::to_string(cases) + " " + std::string(word) + " (" + parts + ")";
}
std::string unsupported_text(const model::VerdictRow& row) {
  return refused_text(row.unsupported, "unsupported");
}

// The one-line reason: why the verdict, then what each flag adds.
std::string explain(const model::VerdictRow& row, const Counts& n,
                    const std::vector<const CaseResult*>& cases, double threshold,
                    bool intolerable) {
  std::string reason;
  // "attempted" is spelled out only when some cases were not.
  const std::string noun = std::string(n.attempted == n.cases ? "" : "attempted ") +
                           (n.attempted == 1 ? "case" : "cases");
  const std::string all =
      n.attempted == 1 ? "the only " + noun : "all " + std::to_string(n.attempted) + " " + noun;
  const std::string of_all = " of " + std::to_string(n.attempted) + " " + noun;
  std::string ratio_text;
  if (row.latency_ratio) {
    ratio_text = "latency ratio " + format_ratio(*row.latency_ratio, threshold);
    // A degenerate interval (noise-free samples) adds nothing to say.
    if (row.latency_ratio_low && row.latency_ratio_high &&
        *row.latency_ratio_low != *row.latency_ratio_high) {
      ratio_text += " (95% CI " + format_g("%.3g", *row.latency_ratio_low) + "-" +
                    format_g("%.3g", *row.latency_ratio_high) + "x)";
    }
    ratio_text += (intolerable ? " > " : " <= ") + format_g("%g", threshold) + "x";
  }
  switch (row.verdict) {
    case Verdict::kUnavailable: {
      if (!row.unsupported.empty()) {
        reason = "no dtype it tried is supported here: " + unsupported_text(row);
        break;
      }
      reason = "no case could be attempted";
      std::string parts;
      if (n.unavailable > 0) {
        parts = std::to_string(n.unavailable) + " unavailable";
      }
      if (n.skipped > 0) {
        parts += (parts.empty() ? "" : ", ") + std::to_string(n.skipped) + " skipped";
      }
      if (!parts.empty()) {
        reason += ": " + parts;
      }
      break;
    }
    case Verdict::kCompleteFailure:
      reason = all + " failed: " + failure_breakdown(cases, row);
      break;
    case Verdict::kPartialFailure:
      reason = std::to_string(n.failed) + of_all + " failed: " + failure_breakdown(cases, row);
      break;
    case Verdict::kDivergent:
      reason = std::to_string(n.mismatched) + of_all + " " + diverged_text(row);
      break;
    case Verdict::kIntolerableLatency:
      reason = ratio_text;
      break;
    case Verdict::kUnverified:
      reason = unchecked_text(n) + " (no reference, property or checked baseline)";
      if (!ratio_text.empty()) reason += "; " + ratio_text;
      break;
    case Verdict::kPortable:
      reason = all + " passed";
      if (!ratio_text.empty()) {
        reason += "; " + ratio_text;
      }
      break;
  }
  for (Verdict flag : row.flags) {
    if (flag == Verdict::kUnavailable) {
      reason += "; " + std::to_string(n.unavailable) + " unavailable";
    } else if (flag == Verdict::kDivergent) {
      reason += "; " + std::to_string(n.mismatched) + " " + diverged_text(row);
    } else if (flag == Verdict::kIntolerableLatency) {
      reason += "; " + ratio_text;
    } else if (flag == Verdict::kUnverified) {
      reason += "; " + unchecked_text(n);
    }
  }
  if (!row.kernel_missing.empty()) {
    reason += "; " + refused_text(row.kernel_missing, "kernel_missing");
  }
  if (!row.unsupported.empty() && row.verdict != Verdict::kUnavailable) {
    reason += "; " + unsupported_text(row);
  }
  return reason;
}

// One more refused case of `dtype` (unsupported or kernel_missing): the
// first reason seen is kept; documented when any of its cases is.
void note_refused(const std::string& dtype, const RefusalOf& why,
                  std::vector<model::Refused>& refused) {
  for (auto& u : refused) {
    if (u.dtype == dtype) {
      ++u.cases;
      u.documented = u.documented || why.documented;
      return;
    }
  }
  refused.push_back({dtype, why.reason, 1, why.source, why.documented});
}

// Counts of the group's outcomes; the failing and mismatching case ids,
// sorted. Failing cases outside the function's domain count apart
// (row.unsupported), never as failures; a kernel missing here is a failure,
// listed again in row.kernel_missing.
Counts count_cases(const std::vector<const CaseResult*>& cases,
                   const std::vector<model::Check>& checks, model::VerdictRow& row) {
  Counts n;
  for (size_t i = 0; i < cases.size(); ++i) {
    const CaseResult* r = cases[i];
    ++n.cases;
    const auto why = refusal_of(*r);
    if (why.refusal == model::Refusal::kUnsupported) {
      ++n.unsupported;
      note_refused(r->info.dtype, why, row.unsupported);
      continue;
    }
    if (why.refusal == model::Refusal::kKernelMissing) {
      note_refused(r->info.dtype, why, row.kernel_missing);
    }
    if (r->outcome == Outcome::kPass) {
      ++n.passed;
      if (checks[i] == model::Check::kNone) ++n.unchecked;
    }
    if (model::props(r->outcome).attempted) ++n.attempted;
    if (model::props(r->outcome).failed) {
      ++n.failed;
      row.failing.push_back(r->info.id);
    }
    if (r->outcome == Outcome::kMismatch) {
      ++n.mismatched;
      row.mismatching.push_back(r->info.id);
      const auto cause =
          r->numeric.cause == model::Cause::kNone ? model::Cause::kFullPrecision : r->numeric.cause;
      ++row.causes[cause];
    }
    if (r->outcome == Outcome::kUnavailable) ++n.unavailable;
    if (r->outcome == Outcome::kSkip) ++n.skipped;
  }
  std::sort(row.failing.begin(), row.failing.end());
  std::sort(row.mismatching.begin(), row.mismatching.end());
  const auto by_dtype = [](const auto& a, const auto& b) { return a.dtype < b.dtype; };
  std::sort(row.unsupported.begin(), row.unsupported.end(), by_dtype);
  std::sort(row.kernel_missing.begin(), row.kernel_missing.end(), by_dtype);
  row.cases = n.cases;
  row.unchecked = n.unchecked;
  return n;
}

// The group's latency ratio to its baseline and, when every pair carries raw
// samples, its bootstrap interval. `baseline` is null for the baseline itself
// or a device whose baseline did not run.
void latency_ratio(const std::vector<const CaseResult*>& cases,
                   const std::unordered_map<std::string, const CaseResult*>* baseline,
                   const Options& options, model::VerdictRow& row) {
  if (baseline == nullptr) return;
  std::vector<double> ratios;
  std::vector<stats::SamplePair> samples;
  for (const CaseResult* r : cases) {
    const auto device_ns = timed_median_ns(*r);
    const auto it = baseline->find(r->info.id);
    if (!device_ns || it == baseline->end()) continue;
    if (const auto baseline_ns = timed_median_ns(*it->second)) {
      ratios.push_back(*device_ns / *baseline_ns);
      samples.push_back({r->latency.samples_ns, it->second->latency.samples_ns});
    }
  }
  row.latency_ratio = stats::geometric_mean(ratios);
  if (row.latency_ratio && samples.size() == ratios.size()) {
    // The interval resamples the raw samples; the point is the estimator's
    // (rounds, device time). An interval that does not hold its own point
    // describes another statistic: it is dropped and the point judges.
    auto ci =
        stats::bootstrap_ratio(samples, options.bootstrap_iterations, 0.95, options.bootstrap_seed);
    constexpr double kRounding = 1e-9;
    if (ci && ci->low <= *row.latency_ratio * (1 + kRounding) &&
        *row.latency_ratio <= ci->high * (1 + kRounding)) {
      row.latency_ratio_low = ci->low;
      row.latency_ratio_high = ci->high;
    }
  }
}

// The verdict by precedence, and every other category as a flag (enum order).
void classify(const Counts& n, bool intolerable, model::VerdictRow& row) {
  if (n.attempted == 0) {
    row.verdict = Verdict::kUnavailable;
  } else if (n.failed == n.attempted) {
    row.verdict = Verdict::kCompleteFailure;
  } else if (n.failed > 0) {
    row.verdict = Verdict::kPartialFailure;
  } else if (n.mismatched > 0) {
    row.verdict = Verdict::kDivergent;
  } else if (intolerable) {
    row.verdict = Verdict::kIntolerableLatency;
  } else if (n.unchecked > 0) {
    row.verdict = Verdict::kUnverified;
  } else {
    row.verdict = Verdict::kPortable;
  }
  if (n.unavailable > 0 && n.attempted > 0) row.flags.push_back(Verdict::kUnavailable);
  if (n.mismatched > 0 && row.verdict != Verdict::kDivergent) {
    row.flags.push_back(Verdict::kDivergent);
  }
  if (intolerable && row.verdict != Verdict::kIntolerableLatency) {
    row.flags.push_back(Verdict::kIntolerableLatency);
  }
  if (n.unchecked > 0 && row.verdict != Verdict::kUnverified) {
    row.flags.push_back(Verdict::kUnverified);
  }
}

// The callable a case reported missing (protocol 1.8 `missing_name`), or "".
// Results of older probes carry no such field: there, only the case a suite
// declares to look the name up as listed (shape "as-listed"), or a message
// that begins with the function's own name and says it does not exist
// ("jax._src.core.get_aval (and ...) do not exist"), says so; never another
// reason, such as "torch.compile does not exist".
std::string missing_name(const CaseResult& r) {
  if (r.outcome != Outcome::kUnavailable) return "";
  if (auto it = r.extra.find("missing_name"); it != r.extra.end()) {
    return it->is_string() ? it->get<std::string>() : "";
  }
  const std::string& m = r.error.message;
  const bool as_listed = r.info.shape == "as-listed" || (m.starts_with(r.info.function + " ") &&
                                                         m.find(" not exist") != std::string::npos);
  return as_listed ? r.info.function : "";
}

// A listed name that does not exist here (see the header): the row becomes
// `unavailable`, keeping what the successor earned. A successor that is
// missing says so in the reason and changes nothing else.
void listed_missing(const std::vector<const CaseResult*>& cases, const Counts& n,
                    model::VerdictRow& row) {
  const CaseResult& first = *cases.front();
  const std::string& successor = first.info.successor;
  if (successor.empty()) return;
  bool listed_gone = false;
  std::string successor_gone;
  for (const CaseResult* r : cases) {
    const auto name = missing_name(*r);
    if (name.empty()) continue;
    if (name == successor || name.starts_with(successor + ".")) {
      successor_gone = name;
    } else {
      listed_gone = true;
    }
  }
  if (!successor_gone.empty()) row.reason += "; successor " + successor_gone + " missing here";
  if (!listed_gone || n.attempted == 0) return;
  row.successor = successor;
  row.successor_verdict = row.verdict;
  row.verdict = Verdict::kUnavailable;
  row.reason = "listed name missing; successor " + row.successor + " " +
               std::string(model::to_string(*row.successor_verdict)) + ": " + row.reason;
  std::erase(row.flags, Verdict::kUnavailable);
}

model::VerdictRow judge_group(const std::vector<const CaseResult*>& cases,
                              const std::vector<model::Check>& checks,
                              const std::unordered_map<std::string, const CaseResult*>* baseline,
                              const Options& options) {
  const CaseResult& first = *cases.front();
  model::VerdictRow row;
  row.framework = first.info.framework;
  row.function = first.info.function;
  row.device = first.device;
  const Counts n = count_cases(cases, checks, row);
  latency_ratio(cases, baseline, options, row);
  const double threshold = options.threshold(row.function, row.device);
  // With raw samples, only an interval wholly above the threshold is
  // intolerable: noise cannot make a verdict. Without them, the point ratio.
  const std::optional<double> judged =
      row.latency_ratio_low ? row.latency_ratio_low : row.latency_ratio;
  const bool intolerable = judged && *judged > threshold * (1 + kThresholdSlack);
  classify(n, intolerable, row);
  row.reason = explain(row, n, cases, threshold, intolerable);
  listed_missing(cases, n, row);
  return row;
}

}  // namespace

std::optional<std::string> unsupported_reason(const model::CaseResult& r) {
  auto why = refusal_of(r);
  if (why.refusal != model::Refusal::kUnsupported) return std::nullopt;
  return std::move(why.reason);
}

std::vector<Gap> portability_gaps(const std::vector<model::CaseResult>& results,
                                  const Options& options) {
  // (machine, case id) -> a device where it passed, the baseline preferred
  std::map<std::pair<std::string, std::string>, std::string> passed_on;
  for (const auto& r : results) {
    if (r.outcome != Outcome::kPass) continue;
    auto& where = passed_on[{options.baseline_for(r.device), r.info.id}];
    if (where.empty() || r.device == options.baseline_for(r.device)) where = r.device;
  }
  std::vector<Gap> gaps;
  for (const auto& r : results) {
    if (!model::props(r.outcome).failed) continue;
    const auto it = passed_on.find({options.baseline_for(r.device), r.info.id});
    if (it == passed_on.end()) continue;
    const auto why = refusal_of(r);
    const bool refused = why.refusal != model::Refusal::kNone;
    gaps.push_back({r.info.framework, r.info.function, r.info.id, r.device, it->second,
                    refused ? std::string(model::to_string(why.refusal))
                            : std::string(model::to_string(r.outcome)),
                    refused ? why.reason : first_line_of(r.error.message)});
  }
  std::sort(gaps.begin(), gaps.end(), [](const Gap& a, const Gap& b) {
    return std::tie(a.framework, a.function, a.case_id, a.device) <
           std::tie(b.framework, b.function, b.case_id, b.device);
  });
  return gaps;
}

std::vector<Unreached> unreached_gaps(const std::vector<model::CaseResult>& results,
                                      const Options& options) {
  // (framework, machine) -> its devices; (case id, device) pairs with an outcome
  std::map<std::pair<std::string, std::string>, std::set<std::string>> devices;
  std::set<std::pair<std::string, std::string>> reached;
  for (const auto& r : results) {
    devices[{r.info.framework, options.baseline_for(r.device)}].insert(r.device);
    reached.insert({r.info.id, r.device});
  }
  std::map<std::tuple<std::string, std::string, std::string>, Unreached> out;
  for (const auto& r : results) {
    if (!model::props(r.outcome).failed) continue;
    for (const auto& other : devices[{r.info.framework, options.baseline_for(r.device)}]) {
      if (other == r.device || reached.contains({r.info.id, other})) continue;
      auto& u = out[{r.info.framework, r.device, other}];
      if (u.cases++ == 0) u = {r.info.framework, r.device, other, 1, r.info.id};
    }
  }
  std::vector<Unreached> rows;
  for (auto& [key, u] : out) rows.push_back(std::move(u));
  return rows;
}

std::vector<model::VerdictRow> compute(const std::vector<model::CaseResult>& results,
                                       const Options& options) {
  return compute(results, checks_of(results), options);
}

std::vector<model::VerdictRow> compute(const std::vector<model::CaseResult>& results,
                                       const std::vector<model::Check>& checks,
                                       const Options& options) {
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::vector<const CaseResult*>> groups;
  std::map<Key, std::vector<model::Check>> group_checks;
  // baseline device -> case id -> its result there
  std::map<std::string, std::unordered_map<std::string, const CaseResult*>> baselines;
  for (size_t i = 0; i < results.size(); ++i) {
    const CaseResult& r = results[i];
    if (!model::props(r.outcome).judged) continue;  // the suite's mistake: no verdict
    const Key key{r.info.framework, r.info.function, r.device};
    groups[key].push_back(&r);
    group_checks[key].push_back(checks[i]);
    if (r.device == options.baseline_for(r.device)) {
      baselines[r.device][r.info.id] = &r;
    }
  }
  std::vector<model::VerdictRow> rows;
  rows.reserve(groups.size());
  for (const auto& [key, cases] : groups) {
    const std::string& device = std::get<2>(key);
    const std::string base = options.baseline_for(device);
    const auto it = baselines.find(base);
    rows.push_back(judge_group(cases, group_checks[key],
                               device == base || it == baselines.end() ? nullptr : &it->second,
                               options));
  }
  return rows;
}

namespace {

// Is this check a sanity property? Results of probes before protocol 1.8
// stored the models' two sanity properties (probe/mudjack_probe/models.py)
// as kind "property": there, a whole model's property of one of those two
// names reads as sanity, so the published runs re-judge as they would today.
bool sanity_check(const nlohmann::json& check, const model::CaseResult& r) {
  const auto kind = check.value("kind", "property");
  if (kind == "sanity") return true;
  if (kind != "property" || !stats::whole_model(r.info)) return false;
  const auto name = check.value("name", "");
  return name == "every output is finite" || name == "the first output is not constant";
}

}  // namespace

model::Check own_check(const model::CaseResult& r) {
  if (r.outcome != Outcome::kPass) return model::Check::kNone;
  const auto checks = r.extra.find("checks");
  if (checks == r.extra.end() || !checks->is_array() || checks->empty()) {
    return model::Check::kNone;
  }
  bool reference = false;
  bool property = false;
  for (const auto& c : *checks) {
    if (!c.is_object() || !c.value("ok", false)) return model::Check::kNone;
    const auto kind = c.value("kind", "property");
    reference = reference || kind == "reference";
    property = property || !sanity_check(c, r);  // a sanity property checks nothing
  }
  if (reference) return model::Check::kReference;
  return property ? model::Check::kProperty : model::Check::kNone;
}

namespace {

// A check's float64 row (tag "check.role::reference") computes what its
// narrower rows' float64 references compute: where one of them, same
// function, mode, shape and device, passed against it, the row is the
// reference that judged, checked by float64, not a pass nothing checked.
void check_references(const std::vector<model::CaseResult>& results,
                      std::vector<model::Check>& out) {
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
  const auto key = [](const model::CaseResult& r) {
    return Key{r.info.framework, r.info.function, r.info.mode, r.info.shape, r.device};
  };
  std::set<Key> judged;
  for (size_t i = 0; i < results.size(); ++i) {
    if (out[i] == model::Check::kFloat64 && results[i].info.dtype != "float64") {
      judged.insert(key(results[i]));
    }
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& tags = results[i].info.tags;
    if (out[i] == model::Check::kNone && results[i].outcome == Outcome::kPass &&
        std::find(tags.begin(), tags.end(), "check.role::reference") != tags.end() &&
        judged.contains(key(results[i]))) {
      out[i] = model::Check::kFloat64;
    }
  }
}

}  // namespace

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
    if (out[i] != model::Check::kNone || r.outcome != Outcome::kPass ||
        r.numeric.compared_with.empty()) {
      continue;
    }
    auto base = own.find({r.info.id, r.numeric.compared_with});
    if (base != own.end() && base->second != model::Check::kNone) out[i] = model::Check::kBaseline;
  }
  // What nothing else checked, the accuracy oracle may have: judged against
  // the case's own float64 run (its error in eps is recorded).
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (out[i] == model::Check::kNone && r.outcome == Outcome::kPass && r.numeric.error_eps &&
        std::isfinite(*r.numeric.error_eps) && !r.numeric.reference.empty()) {
      out[i] =
          model::trusted_reference(r.numeric) ? model::Check::kReference : model::Check::kFloat64;
    }
  }
  check_references(results, out);
  return out;
}

std::map<std::pair<std::string, std::string>, CaseRatio> case_ratios(
    const std::vector<model::CaseResult>& results, const Options& options) {
  std::map<std::pair<std::string, std::string>, const CaseResult*> by_pair;
  for (const CaseResult& r : results) by_pair[{r.info.id, r.device}] = &r;
  std::map<std::pair<std::string, std::string>, CaseRatio> out;
  for (const CaseResult& r : results) {
    const std::string base = options.baseline_for(r.device);
    const auto device_ns = timed_median_ns(r);
    if (r.device == base || !device_ns) continue;
    const auto it = by_pair.find({r.info.id, base});
    if (it == by_pair.end()) continue;
    const auto baseline_ns = timed_median_ns(*it->second);
    if (!baseline_ns) continue;
    CaseRatio c{base, *device_ns / *baseline_ns, std::nullopt, std::nullopt};
    const std::array<stats::SamplePair, 1> pair{
        stats::SamplePair{r.latency.samples_ns, it->second->latency.samples_ns}};
    if (auto ci = stats::bootstrap_ratio(pair, options.bootstrap_iterations, 0.95,
                                         options.bootstrap_seed)) {
      c.low = ci->low;
      c.high = ci->high;
    }
    out.emplace(std::pair{r.info.id, r.device}, std::move(c));
  }
  return out;
}

std::string Options::baseline_for(std::string_view device) const {
  const auto slash = device.find('/');
  if (slash == std::string_view::npos) return baseline;
  return std::string(device.substr(0, slash + 1)) + baseline;
}

double Options::threshold(const std::string& function, const std::string& device) const {
  const auto slash = device.find('/');
  const std::string bare = slash == std::string::npos ? device : device.substr(slash + 1);
  for (const auto& key :
       {std::tuple{function, baseline, bare}, std::tuple{std::string(), baseline, bare}}) {
    if (auto it = pair_ratios.find(key); it != pair_ratios.end()) return it->second;
  }
  if (auto it = function_ratios.find(function); it != function_ratios.end()) return it->second;
  return intolerable_ratio;
}

std::string_view paper_reason(const model::CaseResult& r) {
  using model::ErrorKind;
  switch (r.outcome) {
    case Outcome::kPass:
    case Outcome::kSkip:
    case Outcome::kError:
      return "";
    case Outcome::kMismatch:
      return "float precision";
    case Outcome::kTimeout:
      return "timeout";
    case Outcome::kUnavailable:
      return "unavailable";
    case Outcome::kCrash:
      return r.error.kind == ErrorKind::kOutOfMemory ? "memory" : "crash";
    case Outcome::kFail:
      switch (r.error.kind) {
        case ErrorKind::kNotImplemented:
        case ErrorKind::kUnsupportedDtype:
          return "not implemented";
        case ErrorKind::kTypeError:
          return "type";
        case ErrorKind::kOutOfMemory:
          return "memory";
        default:
          return "other";
      }
  }
  return "other";
}

}  // namespace mudjack::verdict
