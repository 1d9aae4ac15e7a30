#pragma once
// Runs planned (case, device) pairs in probe processes and stores each
// outcome the moment it lands.
//
// Lanes: one per device, each on its own thread; a lane runs its frameworks
// one after another, cases in plan order. Lanes run in parallel only when
// every lane can have cores of its own (the cpu lane is pinned away from the
// cores given to accelerator lanes); otherwise lanes run one after another
// so no timing disturbs another. An accelerator lane is one probe process at
// a time. The cpu lane may be several probes (`Layout`, --cpu-probes), each
// pinned to a disjoint core set with its frameworks' intra-op threads set to
// its share and on a thread of its own: the lane's cases of a framework are
// a queue each probe takes the next case from as it frees up.
//
// Exactly one outcome per pair: a case that crashes, hangs or overruns memory
// is recorded as crash / timeout and the lane starts a new probe for the next
// case. Only an interrupt or an engine fault leaves pairs without an outcome;
// they stay in the plan and run on --resume. A case in the middle of its
// timing rounds is held in the store round by round (Store::hold): a killed
// engine's resume runs only the rounds it is missing.
//
// An engine fault is the machine failing, not a case: the probe could not
// save a case's outputs or load its suite (a full disk, a read-only artifact
// folder, an address-space limit; protocol 1.1 `engine_fault`), or a probe
// failed to start max_start_failures times in a row. It is never stored as
// an outcome (a `crash` would publish a working function as a failure); it
// stops the run: every lane ends after its case in flight, and execute()
// reports the fault's one line.

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "protocol/protocol.hpp"
#include "stats/timing.hpp"
#include "store/store.hpp"
#include "supervisor/probe_session.hpp"

namespace mudjack::supervisor {

// How a framework's probes are started, or why they cannot be.
struct FrameworkRuntime {
  std::string framework;
  std::filesystem::path python;  // empty: unavailable
  std::string unavailable;       // reason, when python is empty or the framework cannot start
  // Set when the framework is installed but its probe reports an engine fault
  // (it fails to import, it cannot map its libraries): python stays set, so
  // the run's lanes meet the fault themselves and stop the run, storing no
  // outcome that blames the framework.
  std::string engine_fault;
};

// One probe's place on the host: the cores it is pinned to (empty: every
// core the engine has, no pinning) and the intra-op threads its frameworks
// are given (0: the framework's own default).
struct ProbeCores {
  std::vector<int> cpus;
  size_t threads = 0;
};
// Where a run's lanes run: each device's probes (one for an accelerator,
// or several, a framework's each, taking turns on it; one or more for `cpu`), and
// whether the lanes run side by side.
struct Layout {
  bool parallel = false;
  std::map<std::string, std::vector<ProbeCores>> probes;  // device -> its probes
  // Accelerators whose several probes take turns on the device (a lock
  // file, MUDJACK_DEVICE_LOCK: a case holds the device from the end of its
  // cold call to its end).
  std::set<std::string> shared;
  // The host's cores, fastest first: an unpinned probe's calling thread
  // sits on the first.
  std::vector<int> host_cpus;
  // The form results.json records (environment.machines[].layout):
  // {"parallel", "lanes": [{"device", "shared", "probes": [{"cpus",
  // "pinned", "threads"}]}]}; an unpinned probe lists the host's cores.
  nlohmann::json to_json() const;
};

// The layout of lanes for `devices` on the host's cores `cpus` (fastest
// first: accelerator lanes take theirs from the front), a pure function.
// Lanes run side by side when `parallel_allowed`, there is more than one,
// and lane_cores() leaves the cpu lane at least 2 cores. The cpu lane's
// cores (the rest, or every core when it runs alone) are split into
// `cpu_probes` contiguous sets (0: default_cpu_probes(), at most one probe
// per core), the first ones one core larger when they do not divide. A
// probe on fewer cores than `cpus` has its threads set to its core count;
// a probe on every core keeps the framework's default (0), as before.
// An accelerator lane running side by side with `frameworks[device]` > 1
// frameworks gets `device_probes` probes (0: three per framework), at most
// one per core, taking up to 3/8 of `cpus` (at least its lane_cores()),
// its cores split among them; the device is then `shared`. A lane alone,
// or of one framework (by default), has one probe.
Layout lay_out(const std::vector<int>& cpus, const std::vector<std::string>& devices,
               int cpu_probes, bool parallel_allowed, int device_probes = 1,
               const std::map<std::string, size_t>& frameworks = {});
// The cpu lane's probes when none are asked for: one per 2 of its cores,
// at least one (a 2-core machine runs one probe, a 12-core rest six).
size_t default_cpu_probes(size_t cpu_lane_cores);
// The framework each of a shared lane's `slots` probes starts on (an index
// into `cases`, each framework's case count in the lane's order): as many
// probes per framework as its share of the cases (largest remainder, ties
// to the earlier framework), at least one each while probes last, so the
// frameworks' queues drain together and few probes have to change
// framework (start another framework's probe) near the lane's end.
std::vector<size_t> first_frameworks(const std::vector<size_t>& cases, size_t slots);

struct RunSpec {
  std::string run_id;
  std::vector<std::pair<model::CaseInfo, std::string>> work;  // (case, device) in plan order
  std::map<std::string, FrameworkRuntime> frameworks;
  std::filesystem::path probe_dir;
  std::vector<std::filesystem::path> suite_dirs;
  // Run parameters (`--param NAME=VALUE`), given to every probe; the same
  // ones the plan was listed with, so case ids match.
  std::map<std::string, std::string> params;
  std::filesystem::path artifact_root;  // <run folder>/artifacts
  protocol::Policy policy;
  ProbeSession::Limits limits;
  std::string baseline = "cpu";
  // The run's plan has the baseline device (a resumed run may have no work
  // left on it): its probe builds the float64 references; without it, every
  // device builds its own.
  bool baseline_planned = true;
  int64_t seed = 0;
  bool parallel = true;
  // The cpu lane's probes (RunOptions::cpu_probes; 0: default_cpu_probes).
  int cpu_probes = 0;
  // An accelerator lane's probes (RunOptions::device_probes; 0: three per framework).
  int device_probes = 1;
  // Where the lanes run; unset: lay_out() over this process's cores at
  // execute() (run::execute sets it first, to record it with the run).
  std::optional<Layout> layout;
  // Timing rounds of every host-bound case (stats/timing.hpp), interleaved
  // across windows of round_window cases; the policy's budget is per round.
  int rounds = stats::kDefaultRounds;
  int round_window = 200;
  int max_start_failures = 3;  // consecutive failed probe starts before the run stops (a fault)
  // "" runs each case by its declared policy (CaseInfo::policy); "timed" or
  // "once" runs every case so (RunOptions::policy).
  std::string policy_override;
  // Whether `info` runs under the policy `once` in this run.
  bool once(const model::CaseInfo& info) const {
    return (policy_override.empty() ? info.policy : policy_override) == "once";
  }
};

// Receives every stored outcome; called from lane threads, serialised by the supervisor.
using ResultListener = std::function<void(const model::CaseResult&)>;

// The numeric oracle over one run (docs/design.md, "accuracy oracle"). A
// floating output of a case narrower than float64 is judged against the
// float64 reference the baseline's probe built (oracle/accuracy.hpp): the
// baseline alone within its bound, every other device within its bound
// scaled by the baseline's own error; a divergence gets its cause
// (full_precision, precision_default when the device's strict-precision run
// agrees, baseline_wrong when the device is right and the baseline is not).
// Integers, bools and float64 outputs are compared with the baseline's
// (exactly, or within the dtype's tolerance). A pass becomes a mismatch (and
// the change is recorded) the moment the evidence exists. Thread-compatible:
// the supervisor calls it under its store lock.
class Oracle {
 public:
  Oracle(store::Store& store, std::string run_id, std::string baseline);
  // Seeds the index from results already stored (resume).
  void load(const std::vector<model::CaseResult>& existing);
  // Compares `r` against what is known, possibly changing r.outcome/numeric
  // before it is stored; returns other stored results it changed.
  std::vector<model::CaseResult> observe(model::CaseResult& r);

 private:
  bool compare(model::CaseResult& device_result, const model::CaseResult& baseline_result);
  store::Store& store_;
  std::string run_id_;
  std::string baseline_;
  // case id -> device -> latest result with outputs
  std::map<std::string, std::map<std::string, model::CaseResult>> by_case_;
};

// Cores a run's lanes get when they run side by side: each accelerator
// lane (enqueueing, compiling) up to 4, half the machine at most; the cpu
// lane the rest, at least 2. When fewer are left the lanes run one after
// another and `cpu` is every core.
struct LaneCores {
  size_t accelerator = 0;
  size_t cpu = 0;
};
LaneCores lane_cores(size_t cores, size_t accelerator_lanes);
// The OMP_NUM_THREADS a run gives its cpu lane beside `accelerator_lanes`
// accelerator lanes on this process's cores, or 0 when it sets none (the
// framework's default): what a compiled CPU kernel is built for (Inductor
// bakes the thread count into its code and its cache key).
size_t cpu_lane_threads(size_t accelerator_lanes);

// Returns true when every pair got an outcome; false when interrupted or
// stopped by an engine fault, whose one line (for the user: what failed, on
// which framework, device and case) is then stored in *fault, when given
// ("" after an interrupt).
// The layout execute() uses for `spec`: spec.layout, else lay_out() over
// this process's cores, fastest first (os::fastest_first measures them).
Layout layout_for(const RunSpec& spec);

bool execute(const RunSpec& spec, store::Store& store, const ResultListener& on_result,
             const std::atomic<bool>& interrupted, std::string* fault = nullptr);

}  // namespace mudjack::supervisor
