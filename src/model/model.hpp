#pragma once
// The results model: one set of types that the supervisor fills, the store
// persists and every reporter renders (CONTRIBUTING.md rule 8). Field names follow
// schemas/results-v1.schema.json; units are in the names.

#include <array>
#include <cstdint>
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
// executes a run).
inline constexpr std::string_view kSchemaVersion = "1.2";
// Version of results.json. 1.1 added each case's work, throughput, metrics
// and latency_ratio, the run's params, and the top-level `reasons` counts;
// 1.2 each case's `checked`.
inline constexpr std::string_view kResultsSchemaVersion = "1.3";

// The closed list of outcomes (docs/design.md). Every planned case x device of a
// completed run ends with exactly one.
enum class Outcome { kPass, kFail, kMismatch, kCrash, kTimeout, kUnavailable, kSkip };
// Every outcome, in enum order: the one list views iterate.
inline constexpr std::array<Outcome, 7> kOutcomes = {
    Outcome::kPass,    Outcome::kFail,        Outcome::kMismatch, Outcome::kCrash,
    Outcome::kTimeout, Outcome::kUnavailable, Outcome::kSkip};

enum class ErrorKind {
  kNone,
  kNotImplemented,
  kUnsupportedDtype,
  kTypeError,
  kOutOfMemory,
  kDeviceError,
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
// case's own checks; `baseline`, agreement with the baseline device's
// outputs where that baseline pass was itself checked; `none`, nothing
// looked at the answer.
enum class Check { kNone, kReference, kProperty, kBaseline };

std::string_view to_string(Outcome o);
std::string_view to_string(ErrorKind k);
std::string_view to_string(Verdict v);
std::string_view to_string(Check c);
// Parsers return nullopt for names outside the closed lists.
std::optional<Outcome> parse_outcome(std::string_view s);
std::optional<ErrorKind> parse_error_kind(std::string_view s);
std::optional<Verdict> parse_verdict(std::string_view s);
std::optional<Check> parse_check(std::string_view s);
// "MAJOR.MINOR" (schema_version) -> (major, minor); nullopt if malformed.
std::optional<std::pair<int, int>> parse_schema_version(std::string_view v);

// Static metadata of one case, as the probe's `list` reply declares it.
struct CaseInfo {
  std::string id;  // <framework>/<function as listed>/<variant>
  std::string framework;
  std::string function;
  std::string variant;
  std::string dtype;
  std::string shape;  // shape tag, e.g. "vec", "empty"
  std::string mode;   // "eager" | "compiled"
  std::string compiler;
  nlohmann::json params = nlohmann::json::object();
  nlohmann::json requires_ = nlohmann::json::object();
  nlohmann::json dims = nlohmann::json::array();
  std::string note;
  std::string successor;
  std::optional<double> rtol;
  std::optional<double> atol;
  std::vector<std::string> tags;
};

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

struct Latency {
  std::optional<int64_t> cold_ns;
  std::vector<double> samples_ns;
  int64_t calls_per_sample = 0;
  std::optional<LatencyStats> stats;  // absent when there are no samples
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

struct Numeric {
  std::optional<double> max_abs_err;
  std::optional<double> max_rel_err;
  std::string compared_with;  // baseline device id, empty if not compared
  std::string message;        // why it is a mismatch (shape, dtype, values)
};

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
