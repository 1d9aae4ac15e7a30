#pragma once
// Verdicts: the paper's portability categories, plus numeric divergence, per
// (framework, function, device). A pure function of the case results.
//
// A device is judged against Options::baseline_for(device): the baseline, or
// in a merged run its own machine's baseline.
//
// Rules. Within one group of cases (same framework, function and device):
// - error cases (the suite's own mistake) enter no group: no verdict counts them.
// - attempted: cases whose outcome is neither unavailable nor skip.
// - failed: fail, crash or timeout. ran: pass or mismatch.
// - latency ratio: geometric mean, over the group's cases that ran, have
//   latency stats with median_ns > 0, and whose same case id on the baseline
//   device also ran with median_ns > 0, of device median / baseline median.
//   None when no case pairs up, and never for the baseline device itself.
// - latency interval: the 95% percentile bootstrap of that ratio
//   (stats::bootstrap_ratio, fixed seed), when the paired cases carry raw
//   samples.
// - intolerable: the interval's lower bound (else, with no samples, the
//   latency ratio itself) is strictly greater than the threshold
//   (Options::intolerable_ratio, or the function's entry in
//   Options::function_ratios). A ratio within 1e-9 (relative) of the
//   threshold counts as equal to it, so rounding in the geometric mean cannot
//   turn "exactly at the threshold" into "above it".
// The verdict is the first that applies:
//   unavailable          attempted == 0
//   complete_failure     every attempted case failed
//   partial_failure      some attempted cases failed, some ran
//   divergent            none failed, some mismatched
//   intolerable_latency  none failed or mismatched, and intolerable
//   unverified           some pass was checked by nothing (checks_of: kNone)
//   portable             otherwise
// Flags list, in enum order, every other category that also applies:
//   unavailable          some cases are unavailable though others were attempted
//   divergent            some mismatched (under partial_failure)
//   intolerable_latency  intolerable (under partial_failure or divergent)
//   unverified           some pass checked by nothing (under any verdict above it)
// A listed name that is missing: when the group's cases declare a successor
// (CaseInfo::successor) and one of them reports the listed callable missing
// (the probe's `missing_name`, protocol 1.8: never inferred from an
// unavailable case with another reason), the listed name does not exist
// here. The verdict is then `unavailable`, whatever the successor's cases
// did; a missing successor only adds "successor X missing here" to the
// reason. VerdictRow::successor names the successor and
// successor_verdict holds the verdict its cases earned, so a report counts
// "listed name missing; successor portable" apart and never as portable.
// Claims: a device's verdict depends only on that device's outcomes and
// what is claimed for it, never on how many devices ran (one device or many,
// the same verdict). A case that failed (the framework raised: outcome
// `fail`) is `unsupported` rather than a failure when its dtype is not
// claimed on its device (unsupported_reason): it is left out of the counts
// above and listed in VerdictRow::unsupported with the reason; when every
// attempted case is unsupported, the verdict is `unavailable`. A crash or a
// timeout is always a failure: a framework that does not support a dtype
// says so. Cross-device facts ("passes on A, not on B") are
// portability_gaps(), a separate view that changes no verdict.
// Divergences carry their causes (VerdictRow::causes, from each mismatch's
// Numeric::cause; a mismatch without one counts as full_precision); the
// verdict is `divergent` whatever the cause.
// complete_failure, partial_failure and portable are never flags: they cannot
// hold alongside a verdict that outranks them. skip never raises a flag (the
// case declared a requirement this machine does not meet).

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "model/model.hpp"

namespace mudjack::verdict {

struct Options {
  std::string baseline = "cpu";     // device id every other device is compared with
  double intolerable_ratio = 10.0;  // default threshold on device/baseline latency
  // Per-function thresholds, keyed by CaseInfo::function; they override
  // intolerable_ratio (intolerable.toml's per-function entries).
  std::map<std::string, double> function_ratios;
  // Per device pair, optionally per function (key function "" = every
  // function): {function, baseline, device} -> ratio. Most specific wins:
  // function and pair, then pair, then function, then the default.
  std::map<std::tuple<std::string, std::string, std::string>, double> pair_ratios;
  int bootstrap_iterations = 1000;
  uint64_t bootstrap_seed = 0;  // fixed: the same results give the same verdicts

  // The device `device` is compared with: `baseline`, or for a device of a
  // merged run ("h200/cuda:0", fleet::merge) that machine's own baseline
  // ("h200/cpu").
  std::string baseline_for(std::string_view device) const;
  // Pair entries name unlabelled devices ("cpu", "cuda:0"); a merged run's
  // devices match them by their unlabelled part.
  double threshold(const std::string& function, const std::string& device) const;
};

// The paper's grouping of failure reasons (docs/design.md): not implemented <-
// not_implemented, unsupported_dtype; type <- type_error; timeout; memory <-
// out_of_memory (a fail, or a crash over the memory limit); float precision
// <- mismatch; plus crash, unavailable and other (device_error, other).
// Empty for pass and skip.
inline constexpr std::array<std::string_view, 8> kPaperReasons = {
    "not implemented", "type",  "timeout",     "memory",
    "float precision", "crash", "unavailable", "other"};
std::string_view paper_reason(const model::CaseResult& r);

// Why case `r`'s dtype is not claimed on its device, when `r` failed there
// and it is not; nullopt when it is claimed (the failure counts). Claim
// sources, first that speaks:
//   1. the framework's own op database for the device kind (CaseInfo::claims:
//      OpInfo's dtypes, JAX's harness limitations);
//   2. a kernel registry's prediction for the device kind (the result's
//      extra.kernels: TensorFlow's registered kernels);
//   3. otherwise the suite's declaration: dtypes the author declared are
//      claimed; a dtype the grid added (CaseInfo::grid) is claimed unless the
//      framework or adapter rejected it by type (ErrorKind::kUnsupportedDtype).
std::optional<std::string> unsupported_reason(const model::CaseResult& r);

// A portability gap: a case that passed on one device (works_on) and did not
// on another of the same machine: it failed, crashed or timed out there, or
// was refused there (`what` says which: the outcome, or the refusal word
// unsupported or kernel_missing; `reason` the first line of why).
// The paper's sense: code that works on A does not on B. Never a verdict
// change; views list them beside the failure rate.
struct Gap {
  std::string framework;
  std::string function;
  std::string case_id;
  std::string device;    // where it does not work
  std::string works_on;  // a device where it passed (the baseline first)
  std::string what;  // "unsupported", "kernel_missing", or the outcome: "fail", "crash", "timeout"
  std::string reason;
};
// Sorted by framework, function, case id, device.
std::vector<Gap> portability_gaps(const std::vector<model::CaseResult>& results,
                                  const Options& options);

// Failing cases a gap cannot be told for: the case failed (or was refused)
// on `device`, and `other`, a device of the same machine where the
// framework ran other cases, has no outcome for it (an incomplete run whose
// lane never reached it). Views say so instead of showing no gap.
struct Unreached {
  std::string framework;
  std::string device;  // where the cases failed
  std::string other;   // the device that never ran them
  int cases = 0;
  std::string example;  // the first such case id
};
// Sorted by framework, device, other.
std::vector<Unreached> unreached_gaps(const std::vector<model::CaseResult>& results,
                                      const Options& options);

// Latency of one case on one device against the same case on its baseline
// device: ratio of medians with its 95% percentile-bootstrap interval (when
// both carry raw samples).
struct CaseRatio {
  std::string baseline;  // the device compared with
  double ratio = 0;
  std::optional<double> low;
  std::optional<double> high;
};
// Keyed by (case id, device); only for non-baseline devices where both sides
// ran and were timed (the pairs that enter a verdict's latency ratio).
std::map<std::pair<std::string, std::string>, CaseRatio> case_ratios(
    const std::vector<model::CaseResult>& results, const Options& options);

// One row per (framework, function, device) present in results, sorted by
// framework, then function, then device. Case ids within a row (failing,
// mismatching) are sorted. results is expected to hold at most one result per
// (case id, device), as one run does.
std::vector<model::VerdictRow> compute(const std::vector<model::CaseResult>& results,
                                       const Options& options);
// The same, with how each result was checked already known (`checks` is
// checks_of(results)): verdict::judge computes it once for both.
std::vector<model::VerdictRow> compute(const std::vector<model::CaseResult>& results,
                                       const std::vector<model::Check>& checks,
                                       const Options& options);

// How one result's answer was checked by its own checks: for a pass whose
// checks (results' extra.checks, protocol 1.2) all held, `reference` when one
// of them is a host reference, else `property`; `none` otherwise.
model::Check own_check(const model::CaseResult& r);

// How each result's answer was checked, parallel to `results`: its own
// checks (own_check); else, for a pass that agreed with its baseline
// device's outputs where that baseline pass was itself checked, `baseline`;
// anything else `none`.
std::vector<model::Check> checks_of(const std::vector<model::CaseResult>& results);

}  // namespace mudjack::verdict
