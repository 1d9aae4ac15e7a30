#pragma once
// The results model: one set of types that the supervisor fills, the store
// persists and every reporter renders (CONTRIBUTING.md rule 8). Field names follow
// schemas/results-v1.schema.json; units are in the names.

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/workload.hpp"

namespace mudjack::model {

// Version of the database schema (docs/design.md: MAJOR.MINOR). 1.1 added each
// result's declared work and reported metrics; 1.2 the runs' leases (who
// executes a run); 1.3 each case's oracle metadata (declared reduction
// size, dtype-grid excuses) and each result's accuracy judgement; 1.4 each
// result's timing (class, rounds, drift, disturbances); 1.5 the held
// results of cases whose timing rounds are under way (store.hpp: hold).
inline constexpr std::string_view kSchemaVersion = "1.5";
// Version of results.json. 1.1 added each case's work, throughput, metrics
// and latency_ratio, the run's params, and the top-level `reasons` counts;
// 1.2 each case's `checked`; 1.3 the `unverified` verdict, `unchecked`,
// successors; 1.4 the accuracy oracle (each case's `reduction`, `excused`,
// `grid`, numeric `cause`/`setting`/`error_eps`/`baseline_error_eps`/
// `bound_eps`/`reference`, the verdict rows' `causes` and `lacks_dtype`);
// 1.5 each case's `latency.timing` (class, rounds, spread, drift,
// disturbances) and the run's `rounds`; 1.6 the outcome `error` (the suite's
// own code is wrong) and its count; 1.9 the verdict rows' `unsupported`
// (dtypes not claimed on the device, never failures) in place of
// `lacks_dtype`, and the run's `portability_gaps`; 1.10 the refusal of a
// failing case (each case's `refusal`: unsupported or kernel_missing, its
// source and whether the claims document it), the verdict rows'
// `kernel_missing` and each unsupported entry's `source`, and the gaps'
// `unreached` (failing cases whose other lane never ran them); 1.11 each
// machine's `layout` in `environment.machines[]` (where the probes ran: the
// cpu lane's pinned probes, their cores and threads) and a compiled case's
// `extra.compile_cache` (cold or warm).
inline constexpr std::string_view kResultsSchemaVersion = "1.13";

// The closed list of outcomes (docs/design.md). Every planned case x device of a
// completed run ends with exactly one.
// kError: the suite's own code is wrong (protocol 1.5), never the framework;
// error cases are reported apart and enter no verdict.
enum class Outcome { kPass, kFail, kMismatch, kCrash, kTimeout, kUnavailable, kSkip, kError };
// Every outcome, in enum order: the one list views iterate.
inline constexpr std::array<Outcome, 8> kOutcomes = {
    Outcome::kPass,    Outcome::kFail,        Outcome::kMismatch, Outcome::kCrash,
    Outcome::kTimeout, Outcome::kUnavailable, Outcome::kSkip,     Outcome::kError};

enum class ErrorKind {
  kNone,
  kNotImplemented,
  kUnsupportedDtype,
  kTypeError,
  kOutOfMemory,
  kDeviceError,
  // A mismatch the device's own second call on the same inputs explains: it
  // differs from its first beyond the dtype's tolerance (a stateful or
  // nondeterministic function), so no comparison of the device means much.
  kNondeterministic,
  kOther
};

enum class Verdict {
  kUnavailable,
  kCompleteFailure,
  kPartialFailure,
  kDivergent,
  kIntolerableLatency,
  kUnverified,
  kPortable
};
// Every verdict, in precedence order (enum order).
inline constexpr std::array<Verdict, 7> kVerdicts = {
    Verdict::kUnavailable, Verdict::kCompleteFailure,    Verdict::kPartialFailure,
    Verdict::kDivergent,   Verdict::kIntolerableLatency, Verdict::kUnverified,
    Verdict::kPortable};

// How a pass's answer was checked (docs/design.md: checked): `reference`, a
// host computation independent of the framework under test; `property`, the
// case's own checks (sanity properties, which any wrong answer of the right
// shape passes, do not count); `baseline`, agreement with the baseline
// device's outputs where that baseline pass was itself checked; `float64`
// (results 1.9), the accuracy oracle's judgement against the case's own
// widened run (weaker than an independent reference: the same code at
// float64); `none`, nothing looked at the answer: only `none` is unverified.
enum class Check { kNone, kReference, kProperty, kBaseline, kFloat64 };

// How a failing case's refusal reads (docs/design.md, "domain vs device
// gap"): kNone, an ordinary failure (or no failure at all); kUnsupported,
// outside the function's domain on every device (never in a failure rate);
// kKernelMissing, a gap of this chip: a failure here.
enum class Refusal { kNone, kUnsupported, kKernelMissing };
// Every refusal word (kNone has none), in enum order.
inline constexpr std::array<Refusal, 2> kRefusals = {Refusal::kUnsupported,
                                                     Refusal::kKernelMissing};
// Who said so: the framework's op database (PyTorch's OpInfo, JAX's harness
// limitations), its kernel registry (TensorFlow), a type rule the error
// names (JAX's dtype rules, TensorFlow's op-def attr lists), or the error
// message itself (an API contract, or a kernel or placement of this chip).
// The first two are claims: a kernel_missing they say is `documented`.
enum class RefusalSource { kNone, kOpDatabase, kKernelRegistry, kTypeRule, kMessage };

// What each outcome and each verdict says: the one place they are grouped
// (CONTRIBUTING.md rule 7; the way LLVM lit's result codes carry isFailure).
// Readers ask props(), never a list of names; tools/vocabulary.cpp writes the
// flags to schemas/vocabulary.json (outcome_properties, verdict_properties)
// for the probe, python/mudjack, the scripts and the studies. model.cpp
// asserts their relations: failed is failure && !ran, attempted is
// ran || failure. Not attempted through no one's fault (unavailable, skip)
// reads judged && !attempted.
struct OutcomeProps {
  bool ran = false;        // the call returned an answer, right or wrong: outputs, a latency
  bool failed = false;     // the framework failed it without an answer: it raised, crashed or hung
  bool failure = false;    // the framework failed the case: it gave no answer or a wrong one
  bool attempted = false;  // the framework was asked to run it: it answered or failed
  bool judged = false;     // enters a verdict: all but error (the suite's own code is wrong)
  bool fine = false;       // nothing for the user to look at: a pass, or a skip the case declared
};
struct VerdictProps {
  bool ran = false;        // the function runs here: attempted, no counted case failed unanswered
  bool failed = false;     // some counted case failed unanswered: what the failure rate counts
  bool failure = false;    // some counted case failed, with no answer or a wrong one (divergent)
  bool attempted = false;  // some case of the function was attempted here: all but unavailable
};

// A flag not named is false.
constexpr OutcomeProps props(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      return {.ran = true, .attempted = true, .judged = true, .fine = true};
    case Outcome::kMismatch:
      return {.ran = true, .failure = true, .attempted = true, .judged = true};
    case Outcome::kFail:
    case Outcome::kCrash:
    case Outcome::kTimeout:
      return {.failed = true, .failure = true, .attempted = true, .judged = true};
    case Outcome::kUnavailable:
      return {.judged = true};
    case Outcome::kSkip:
      return {.judged = true, .fine = true};
    case Outcome::kError:
      return {};
  }
  return {};
}

constexpr VerdictProps props(Verdict v) {
  switch (v) {
    case Verdict::kUnavailable:
      return {};
    case Verdict::kCompleteFailure:
    case Verdict::kPartialFailure:
      return {.failed = true, .failure = true, .attempted = true};
    case Verdict::kDivergent:
      return {.ran = true, .failure = true, .attempted = true};
    case Verdict::kIntolerableLatency:
    case Verdict::kUnverified:
    case Verdict::kPortable:
      return {.ran = true, .attempted = true};
  }
  return {};
}

// Every flag by its name in schemas/vocabulary.json, in the order written there.
inline constexpr std::array<std::pair<std::string_view, bool OutcomeProps::*>, 6> kOutcomeFlags = {{
    {"ran", &OutcomeProps::ran},
    {"failed", &OutcomeProps::failed},
    {"failure", &OutcomeProps::failure},
    {"attempted", &OutcomeProps::attempted},
    {"judged", &OutcomeProps::judged},
    {"fine", &OutcomeProps::fine},
}};
inline constexpr std::array<std::pair<std::string_view, bool VerdictProps::*>, 4> kVerdictFlags = {{
    {"ran", &VerdictProps::ran},
    {"failed", &VerdictProps::failed},
    {"failure", &VerdictProps::failure},
    {"attempted", &VerdictProps::attempted},
}};

std::string_view to_string(Outcome o);
std::string_view to_string(ErrorKind k);
std::string_view to_string(Verdict v);
std::string_view to_string(Check c);
std::string_view to_string(Refusal r);        // kNone is ""
std::string_view to_string(RefusalSource s);  // kNone is ""
// Parsers return nullopt for names outside the closed lists.
std::optional<Outcome> parse_outcome(std::string_view s);
std::optional<ErrorKind> parse_error_kind(std::string_view s);
std::optional<Verdict> parse_verdict(std::string_view s);
std::optional<Check> parse_check(std::string_view s);
std::optional<Refusal> parse_refusal(std::string_view s);
std::optional<RefusalSource> parse_refusal_source(std::string_view s);
// Forward: Cause is declared with Numeric below.
enum class Cause;
std::string_view to_string(Cause c);  // kNone is ""
std::optional<Cause> parse_cause(std::string_view s);
// "MAJOR.MINOR" (schema_version) -> (major, minor); nullopt if malformed.
std::optional<std::pair<int, int>> parse_schema_version(std::string_view v);

// How a case calls its function: eager or compiled; a whole model's case
// (suites/models) also amp (autocast to bfloat16), onnxruntime (exported to
// ONNX, run by ONNX Runtime) or train (forward, backward, an SGD step).
inline constexpr std::array<std::string_view, 5> kModes = {"eager", "compiled", "amp",
                                                           "onnxruntime", "train"};
// "eager, compiled, amp, onnxruntime or train"
std::string modes_text();

// Static metadata of one case, as the probe's `list` reply declares it.
struct CaseInfo {
  std::string id;  // <framework>/<function as listed>/<variant>
  std::string framework;
  std::string function;
  std::string variant;
  std::string dtype;
  std::string shape;  // shape tag, e.g. "vec", "empty"
  std::string mode;   // one of kModes
  std::string compiler;
  nlohmann::json params = nlohmann::json::object();
  nlohmann::json requires_ = nlohmann::json::object();
  nlohmann::json dims = nlohmann::json::array();
  std::string note;
  std::string successor;
  std::optional<double> rtol;
  std::optional<double> atol;
  // Free tags; a model's labels are tags "key::value" (name::bert,
  // task::Computer_Vision), which `--labels` selects on.
  std::vector<std::string> tags;
  // How many input elements each output element sums over, as the case
  // declared it (the accuracy bound grows as its square root); none: the
  // engine's default for the op family.
  std::optional<int64_t> reduction;
  // Grid dtypes the function has no case in, with the reason from the closed
  // list (no_tensor_input, integer_only, string_only, dtype_fixed_by_api).
  nlohmann::json excused = nlohmann::json::object();
  bool grid = false;  // generated for the dtype grid
  // The run policy the case declares (docs/design.md): "timed" (measured:
  // cold call, warm-up, blocks, rounds) or "once" (one call, judged; the
  // whole-surface suites). A run may override it (RunOptions::policy).
  std::string policy = "timed";
  // What the framework's own op database claims: device kind ("cpu",
  // "cuda") -> whether the case's dtype is supported there. A kind left out:
  // no claim known. verdict::claims() sets it against what happened.
  nlohmann::json claims = nlohmann::json::object();
};

inline constexpr std::string_view kPolicies[] = {"timed", "once"};
constexpr bool is_policy(std::string_view p) {
  return std::find(std::begin(kPolicies), std::end(kPolicies), p) != std::end(kPolicies);
}

// One device as a probe reports it in `hello`.
struct DeviceInfo {
  std::string id;    // "cpu", "cuda:0"
  std::string kind;  // "cpu", "cuda"
  std::string vendor;
  std::string model;
  int64_t memory_bytes = 0;
  std::string driver_version;
  std::string runtime_version;
  nlohmann::json raw = nlohmann::json::object();  // the full record, clocks included
};

struct ErrorInfo {
  ErrorKind kind = ErrorKind::kNone;
  std::string message;
  std::optional<int> signal;
  std::optional<int> exit_code;
  std::string stderr_tail;
  std::string traceback;
};

// Summary statistics of the warm samples (stats::summarize).
struct LatencyStats {
  double median_ns = 0, p10_ns = 0, p90_ns = 0, iqr_ns = 0, mean_ns = 0, stddev_ns = 0, cv = 0,
         min_ns = 0;
  int64_t n = 0;
};

// How a timed case was measured and how far its median can be trusted
// (docs/design.md, "timing class"; stats/timing.hpp holds the rules).
struct Timing {
  std::string bound;                   // "device_bound" or "host_bound"
  std::string rule;                    // how: "device_events", "enqueue" or "host"
  std::optional<double> wall_ns;       // median host time per call (first round)
  std::optional<double> enqueue_ns;    // median host time to enqueue one call
  std::optional<double> device_ns;     // median device-event time per call
  std::vector<double> rounds_ns;       // each round's median, in order
  double spread = 0;                   // (max - min) / median of rounds_ns
  bool unstable = false;               // rounds disagree beyond stats::kUnstableSpread
  std::vector<double> drift_ns;        // the drift detector beside each round
  std::optional<double> steal;         // share of CPU time the hypervisor took, case-long
  std::optional<double> load;          // highest 1-minute load average per core (probe)
  std::optional<double> sm_clock_mhz;  // lowest GPU SM clock seen (NVML)
  std::vector<std::string> throttle;   // GPU clock throttle reasons seen (NVML)
};
nlohmann::json timing_to_json(const std::optional<Timing>& t);
std::optional<Timing> timing_from_json(const nlohmann::json& j);

struct Latency {
  std::optional<int64_t> cold_ns;
  std::vector<double> samples_ns;
  int64_t calls_per_sample = 0;
  std::optional<LatencyStats> stats;  // absent when there are no samples
  std::optional<Timing> timing;       // absent before protocol 1.4 / results 1.5
};

struct Memory {
  std::optional<int64_t> peak_device_bytes;
  std::optional<int64_t> peak_host_bytes;
};

struct OutputRef {
  std::string path;         // .npy file under the run's artifact folder
  std::string dtype;        // the framework's dtype name (e.g. bfloat16)
  std::string saved_dtype;  // the dtype in the file (bfloat16 is saved as float32)
  std::vector<int64_t> shape;
};

// Why a device's answer diverges (docs/design.md, "cause").
// kOwnCheck (results 1.9): the case's own check failed (a property or a
// reference of its own), not the oracle: a wrong answer, never a precision
// story. It is set when a run is judged (verdict::judge), for a mismatch the
// oracle gave no cause; the precision causes come only from the oracle.
// kUnstableModel (results 1.12): a composition (a whole model) whose float64
// output itself blows up or underflows at its random weights (oracle::
// unstable_output): the comparison says nothing about the device, so it is
// not called full_precision.
// kCauses lists them worst first: a row's cause() is the first present.
enum class Cause {
  kNone,
  kFullPrecision,
  kPrecisionDefault,
  kBaselineWrong,
  kOwnCheck,
  kUnstableModel
};
inline constexpr std::array<Cause, 5> kCauses = {Cause::kOwnCheck, Cause::kFullPrecision,
                                                 Cause::kPrecisionDefault, Cause::kBaselineWrong,
                                                 Cause::kUnstableModel};

struct Numeric {
  std::optional<double> max_abs_err;
  std::optional<double> max_rel_err;
  std::string compared_with;  // baseline device id, empty if not compared
  std::string message;        // why it is a mismatch (shape, dtype, values)
  // The accuracy oracle (schema 1.4). Errors are in units of the output
  // dtype's epsilon relative to |reference| + the reference's RMS; the
  // largest over the outputs judged against a float64 reference.
  std::string reference;            // what the outputs were judged against, e.g. "float64 on cpu"
  std::optional<double> error_eps;  // this device's error
  std::optional<double> baseline_error_eps;  // the baseline's own error
  std::optional<double> bound_eps;           // the allowance it was held to
  Cause cause = Cause::kNone;                // set on a mismatch the oracle found
  std::string setting;                       // precision_default: the setting under which it agrees
};

// The accuracy fields of Numeric (schema 1.4) as one JSON object, for the
// store and results.json; the reader tolerates any missing field.
nlohmann::json accuracy_to_json(const Numeric& n);
void accuracy_from_json(const nlohmann::json& j, Numeric& n);
// CaseInfo's metadata beyond its columns (reduction, excused, grid; policy
// and claims, schema 1.7) likewise.
nlohmann::json oracle_meta_to_json(const CaseInfo& c);
void oracle_meta_from_json(const nlohmann::json& j, CaseInfo& c);
// A record's `policy` ("timed" when absent or not one of kPolicies) and
// `claims` (only its boolean entries; empty when absent).
std::string policy_from_json(const nlohmann::json& j);
nlohmann::json claims_from_json(const nlohmann::json& j);

// The outcome of one (case, device) in one run.
struct CaseResult {
  std::string run_id;
  CaseInfo info;
  std::string device;
  Outcome outcome = Outcome::kUnavailable;
  ErrorInfo error;
  Latency latency;
  Memory memory;
  Numeric numeric;
  std::vector<OutputRef> outputs;
  nlohmann::json extra = nlohmann::json::object();  // output_device, checks, warmup_calls...
  std::optional<Work> work;                         // declared by the case; see workload.hpp
  Metrics metrics;                                  // measured by the case, beside latency
  std::string started_at;                           // ISO 8601 UTC
  std::string finished_at;                          // ISO 8601 UTC
  double wall_s = 0;                                // wall time the engine spent on this case
};

// A dtype a device refused for a function, as its verdict row lists it
// (VerdictRow::unsupported, VerdictRow::kernel_missing): the dtype, why
// (the first case's reason), how many cases were refused so, who said so
// (results 1.10) and, for a kernel missing, whether the framework's claims
// document the gap.
struct Unsupported {
  std::string dtype;
  std::string reason;
  int cases = 0;
  RefusalSource source = RefusalSource::kNone;
  bool documented = false;
  bool operator==(const Unsupported&) const = default;
};
using Refused = Unsupported;

struct VerdictRow {
  std::string framework;
  std::string function;
  std::string device;
  Verdict verdict = Verdict::kUnavailable;
  std::vector<Verdict> flags;        // every other category that applies
  int cases = 0;                     // cases behind the verdict
  std::vector<std::string> failing;  // case ids that failed, crashed, timed out
  std::vector<std::string> mismatching;
  std::optional<double> latency_ratio;  // geometric mean of device/baseline medians
  // 95% percentile-bootstrap interval of latency_ratio (stats::bootstrap_ratio);
  // absent when the cases carry no raw samples.
  std::optional<double> latency_ratio_low;
  std::optional<double> latency_ratio_high;
  std::string reason;  // one line: why this verdict
  // Passes checked by nothing (Check::kNone): any makes the verdict at best
  // `unverified`.
  int unchecked = 0;
  // Non-empty when the function's listed name is missing here (it declares
  // a successor and some of its cases are unavailable): the verdict is then
  // `unavailable`, and successor_verdict says how the successor fared.
  std::string successor;
  std::optional<Verdict> successor_verdict;
  // Mismatching cases by cause (schema 1.4): full_precision,
  // precision_default, baseline_wrong; cases the oracle gave no cause
  // (an output count or dtype that differs) count as full_precision.
  std::map<Cause, int> causes;
  // Dtypes this device does not support for the function (schema 1.9): its
  // failing cases whose dtype is not claimed here (verdict.hpp, "Claims").
  // They are never failures; when they are all the function attempted, the
  // verdict is `unavailable` with their reasons.
  std::vector<Unsupported> unsupported;
  // Dtypes whose kernel is missing on this device (results 1.10): failing
  // cases the claims or the message make a gap of this chip. They are
  // failures (in `failing` and the counts); listed here with their reason.
  std::vector<Refused> kernel_missing;

  // The divergence's cause for the headline: the worst present (own_check
  // outranks full_precision outranks precision_default outranks
  // baseline_wrong); kNone when none.
  Cause cause() const {
    for (Cause c : kCauses) {
      if (auto it = causes.find(c); it != causes.end() && it->second > 0) return c;
    }
    return Cause::kNone;
  }
};

// A run as stored: provenance and the options it ran with.
struct RunInfo {
  std::string id;
  std::string suite;
  std::string state;  // "running" | "complete" | "incomplete"
  std::string created_at;
  std::string finished_at;
  std::string baseline = "cpu";
  nlohmann::json options = nlohmann::json::object();
  nlohmann::json environment = nlohmann::json::object();
};

}  // namespace mudjack::model
