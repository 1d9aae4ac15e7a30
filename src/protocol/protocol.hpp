#pragma once
// Probe protocol v1 (schemas/probe-protocol-v1.md): JSON lines between the
// engine and a probe's stdin/stdout. These functions only translate between
// lines and the results model; they never block and never throw for a bad
// line: a malformed line is a value (Parsed::error) that the supervisor turns
// into a `crash` outcome.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace mudjack::protocol {

inline constexpr int kVersion = 1;
// Additions within version 1 (schemas/probe-protocol-v1.md, "Versions"):
// 1.1 adds `engine_fault` to hello and result; 1.2 `device_unusable` to
// result and `kind` to each check; 1.3 references and strict runs; 1.4
// `enqueue_ns`, `device_samples_ns`, `device_error`, `drift_ns` in the
// result and `timing_only` in the policy; 1.5 the status `error` (the
// suite's own code is wrong) and a case's `invalid` in the listing; 1.6 a
// case's `policy` and `claims` in the listing, `once` in the policy and
// `kernels` (a kernel registry's prediction) in the result; 1.8 `path` on a
// parameter the suites read (its value names a file, folder or program); 1.9
// the requests `build` (streamed `built` lines, then `build_done`),
// `repro_graph` (a fuzz graph as a standalone script) and `reference` (a
// fuzz graph's float64 magnitudes), so that nothing but this protocol
// crosses into Python; 1.10 `accelerators_absent` in hello (the accelerators
// the framework's build targets that are not here, and why), `repro`'s
// `bound_eps` and `minimal`, and `repro_graph`'s `eager`; 1.11 the policy's
// `slow_call_ms`, `slow_min_samples` and `slow_spread` (fewer samples for a
// slow call) and a result's `compile_cache` (cold or warm); 1.12 a result's
// `device_wait_ns` (how long the case waited for its turn on a device its
// probe shares: MUDJACK_DEVICE_LOCK) and `phases_ns` (where the case's
// time went: build, timing's parts, detector, outputs, save, accuracy); 1.13
// a result's `again` (the case's call once more on the same arguments:
// `identical`, or its outputs when they differ from the first's by a bit);
// 1.14 `again`'s `skipped` (one line why no second call was made: the suite
// declared the call stateful, so a second call is not the same computation). A
// probe's hello
// carries its minor as `protocol_minor` (absent: 0); every minor of version 1
// is accepted.
inline constexpr int kMinorVersion = 14;

// The longest one-line `engine_fault` kept (longer ones are cut).
inline constexpr size_t kMaxFaultBytes = 500;

template <typename T>
struct Parsed {
  std::optional<T> value;
  std::string error;  // set when value is empty
  bool ok() const { return value.has_value(); }
};

struct Hello {
  int protocol = 0;
  int protocol_minor = 0;
  std::string probe_version;
  std::string framework;
  std::string framework_version;
  std::string python;
  std::string executable;
  int64_t pid = 0;
  std::vector<model::DeviceInfo> devices;
  std::string unavailable;  // non-empty: the framework cannot run here, and why
  // Non-empty (1.1): the probe could not load because of this machine (an
  // address-space limit, a full disk), not because of the framework; one line.
  std::string engine_fault;
  // 1.10: accelerators the framework's build targets that no listed device
  // is, one line each, "<kind>: <reason>" (a CUDA wheel without a driver,
  // libtpu without TPU chips); empty before 1.10.
  std::vector<std::string> accelerators_absent;
  nlohmann::json raw;
};

// Measurement policy the engine sends with every run request (docs/design.md).
// Its defaults are written here once: run::RunOptions takes the timing ones,
// and the probe's runner.Policy has none (it takes every value from the
// request).
struct Policy {
  double budget_ms = 7;
  int min_samples = 5;
  int max_samples = 1000;
  double warmup_ms = 5;
  double block_ms = 1;  // the shortest timed block; also >= 100 empty blocks
  // The device pass's longest settling (protocol 1.4, device events): calls
  // back to back until two event-timed blocks agree within 2%.
  double settle_ms = 200;
  // Run the device pass where the adapter has a device timer: a later
  // round of a case reported in host time does without (its host blocks
  // then get the whole budget).
  bool device_timer = true;
  // Build each floating case's float64 reference (protocol 1.3): set for the
  // baseline device's probe, or every probe of a run without a baseline.
  bool reference = false;
  // A later timing round (1.4): the probe builds and times the case and
  // reports its timing only (no outputs, checks, references).
  bool timing_only = false;
  // The run policy `once` (1.6): one call, judged, no warm-up, no timing
  // loop; its time is the cold call's.
  bool once = false;
  // Slow calls (1.11; stats/timing.hpp): a case whose warm call takes at
  // least slow_call_ms (0: no such rule) stops sampling once it has
  // slow_min_samples samples within slow_spread ((max - min) / median) of
  // each other, before min_samples. The engine sets the three from
  // stats/timing.hpp (run/lifecycle.cpp); without slow_call_ms the other two
  // are unused.
  double slow_call_ms = 0;
  int slow_min_samples = 0;
  double slow_spread = 0;
  nlohmann::json to_json() const;
};

// What a probe says about one case; the supervisor completes it into a CaseResult.
struct ProbeResult {
  std::string case_id;
  model::Outcome outcome = model::Outcome::kFail;
  model::ErrorInfo error;
  model::Latency latency;  // stats are left for the engine to compute
  model::Memory memory;
  std::vector<model::OutputRef> outputs;
  nlohmann::json extra = nlohmann::json::object();
  std::optional<model::Work> work;  // optional `work` field (protocol 1, additive)
  model::Metrics metrics;           // optional `metrics` field (protocol 1, additive)
  // Non-empty (1.1): the machine failed the probe around this case (its
  // outputs could not be saved, its suite could not be loaded): one line, and
  // no outcome; every other field is then unset.
  std::string engine_fault;
};

// A version mismatch is an error naming both versions.
Parsed<Hello> parse_hello(std::string_view line);
// `params_read`, when given, receives the reply's optional `params` object
// (every run parameter the suites read: {name: {type, default, value}}), or
// an empty object when the probe sent none.
Parsed<std::vector<model::CaseInfo>> parse_cases(std::string_view line,
                                                 nlohmann::json* params_read = nullptr);
Parsed<ProbeResult> parse_result(std::string_view line, std::string_view expected_case);

std::string list_request(std::string_view framework);
std::string run_request(std::string_view case_id, std::string_view device, int64_t seed,
                        const Policy& policy, std::string_view artifact_dir);
std::string shutdown_request();

// `repro`: the probe writes case `case_id` as a standalone script. `seen` is
// what the engine recorded for it (one line, for the script's docstring);
// `expected` the baseline device's saved outputs (.npy) the script compares
// with, within rtol/atol. `bound_eps`: the accuracy oracle's bound when the
// run's outcome was its mismatch (the script then measures the error against
// the float64 reference); `minimal`: the smallest script that shows the
// failure (`mudjack repro --minimal`). Both are sent only when set.
struct ReproRequest {
  std::string case_id;
  int64_t seed = 0;
  std::string seen;
  std::vector<std::string> expected;
  double rtol = 1e-3;
  double atol = 1e-3;
  std::optional<double> bound_eps;
  bool minimal = false;
};
std::string repro_request(const ReproRequest& r);
// The reply: the script, or why the case cannot be written as one (then
// value->script is empty and value->unwritable says why).
struct Repro {
  std::string script;
  std::string unwritable;
};
Parsed<Repro> parse_repro(std::string_view line);

// `repro_graph` (1.9): the probe writes a fuzz graph (a graph.json file) as
// a standalone script reproducing one finding on `backend` and `device`
// (docs/fuzz.md, "Bundles"); answered with a `repro` (parse_repro).
struct GraphScriptRequest {
  std::string graph;  // path of the graph's JSON file
  std::string backend;
  std::string device;
  int64_t seed = 0;
  std::string symptom = "mismatch";
  std::optional<double> bound_eps;  // mismatch: the bound in eps (none: the oracle's alone)
  double slow_ratio = 10;           // slow: compiled / eager median above this reproduces
  double timeout_s = 60;            // timeout: no answer within this reproduces
  std::string eager;  // 1.10, slow: the backend's eager twin (fuzz::eager_twin; "": none)
};
std::string repro_graph_request(const GraphScriptRequest& r);

// `reference` (1.9): the float64 reference of the fuzz graph in file `graph`,
// its inputs drawn from `seed`; the reply is one `reference` object (graph,
// reduction, outputs[], or error), returned whole for src/fuzz/suspect.hpp
// to read.
std::string reference_request(std::string_view graph, int64_t seed);
Parsed<nlohmann::json> parse_reference(std::string_view line, std::string_view graph);

// `build` (1.9): fill the build cache for `cases` in `jobs` processes of the
// probe's framework on its device, timing nothing (`mudjack cache build`).
// The probe streams one `built` line per case as it finishes, then one
// `build_done`.
struct BuildRequest {
  std::vector<std::string> cases;
  int64_t seed = 0;
  int jobs = 1;
  size_t threads = 0;  // the framework's threads per process (0: its default)
  double timeout_s = 600;
};
std::string build_request(const BuildRequest& r);
// One line of the stream: a case built (or not), or the end.
struct Built {
  bool done = false;  // `build_done`: no more lines follow
  std::string case_id;
  std::string status;  // built, failed, timeout, unknown
  double seconds = 0;
  std::string message;
};
Parsed<Built> parse_built(std::string_view line);

model::DeviceInfo device_from_json(const nlohmann::json& j);
model::CaseInfo case_from_json(const nlohmann::json& j);  // throws nlohmann errors on bad types

}  // namespace mudjack::protocol
