#pragma once
// A run judged once: its verdicts and every figure a view shows that is
// computed rather than stored (latency ratios with their intervals, counts,
// how each pass was checked). Every view — results.json, CSV, JUnit,
// Markdown, HTML, the server's results route, the terminal table — renders a
// Judged and computes nothing (CONTRIBUTING.md rule 8).
//
// judge() is pure and deterministic (the bootstrap has a fixed seed), so the
// same results judged with the same options give the same Judged. Thread-safe.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/model.hpp"
#include "verdict/claims.hpp"
#include "verdict/fallback.hpp"
#include "verdict/refusal.hpp"
#include "verdict/verdict.hpp"

namespace mudjack::verdict {

// Counts for one (framework, device); every key of the closed lists present.
struct Tally {
  std::map<model::Outcome, int> outcomes;  // cases per outcome
  std::map<model::Verdict, int> verdicts;  // functions per verdict
  std::map<std::string, int> reasons;      // cases per paper reason (kPaperReasons)
  int cases = 0;
  int functions = 0;
  // Functions whose listed name is missing here (VerdictRow::successor),
  // counted under `unavailable` and here again, apart; and those of them
  // whose successor was portable.
  int listed_missing = 0;
  int successor_portable = 0;
  // Divergent functions by their cause (VerdictRow::cause()); the headline
  // counts the full_precision ones.
  std::map<model::Cause, int> divergent_causes;
  // Functions with dtypes this device does not support (VerdictRow::unsupported),
  // and the cases behind them: never in the failure rate.
  int unsupported_functions = 0;
  int unsupported_cases = 0;
  // Functions with a kernel missing on this device (VerdictRow::kernel_missing),
  // the cases behind them (failures, in the rate) and how many of those the
  // framework's claims document.
  int kernel_missing_functions = 0;
  int kernel_missing_cases = 0;
  int kernel_missing_documented = 0;
  // Portability gaps on this device (portability_gaps()): cases that passed
  // on another device of the machine and not here; counted beside the
  // failure rate, never in it.
  int gaps = 0;

  int count(model::Outcome o) const { return outcomes.at(o); }
  int count(model::Verdict v) const { return verdicts.at(v); }
  // Functions whose verdict has `flag` (model::props).
  int count_where(bool model::VerdictProps::*flag) const {
    int out = 0;
    for (const auto& [v, functions_with_v] : verdicts) {
      if (model::props(v).*flag) out += functions_with_v;
    }
    return out;
  }
  // Functions attempted (not unavailable) and how many of them failed
  // without an answer (partial or complete): the paper's failure rate.
  int attempted_functions() const { return count_where(&model::VerdictProps::attempted); }
  int failing_functions() const { return count_where(&model::VerdictProps::failed); }
  bool any_reason() const;
};

struct Judged {
  model::RunInfo run;
  std::vector<model::CaseResult> cases;
  std::vector<model::VerdictRow> verdicts;
  Options options;  // how it was judged: baseline and thresholds
  // Latency of a case against the same case on its baseline device, keyed by
  // (case id, device); see case_ratios().
  std::map<std::pair<std::string, std::string>, CaseRatio> ratios;
  // framework -> device -> counts; devices are those of cases and verdicts.
  std::map<std::string, std::map<std::string, Tally>> tallies;
  // How each case's answer was checked, parallel to `cases` (kNone for
  // anything but a pass).
  std::vector<model::Check> checked;
  // How each failing case's refusal reads (refusal_of), parallel to `cases`
  // (Refusal::kNone for anything but a refused fail).
  std::vector<RefusalOf> refusals;
  // Claimed versus actual support, for cases that carry claims (claims.hpp).
  std::vector<ClaimRow> claims;
  // Kernel registry predictions against outcomes (claims.hpp, TensorFlow).
  std::vector<KernelRow> kernels;
  // Cases that work on one device and not on another (portability_gaps()).
  std::vector<Gap> gaps;
  // Failing cases no gap can be told for: their other lane never ran them.
  std::vector<Unreached> unreached;
  // Host fallback and recompilation per (framework, function, device)
  // (fallback.hpp): a flag beside the verdict.
  std::vector<FallbackRow> fallbacks;

  // nullptr when the case has no ratio (the baseline itself, or not timed).
  const CaseRatio* ratio_of(const model::CaseResult& r) const;
};

// Computes the verdicts (compute()), then everything else (assemble()).
Judged judge(model::RunInfo run, std::vector<model::CaseResult> cases, const Options& options);

// The derived figures around verdicts already computed (a results.json read
// back, tests with hand-made verdicts).
Judged assemble(model::RunInfo run, std::vector<model::CaseResult> cases,
                std::vector<model::VerdictRow> verdicts, const Options& options);

}  // namespace mudjack::verdict
