#pragma once
// RunOptions: everything a run is asked to do, typed, with every default
// written once: here, or taken from the lower layer that has it (the timing
// policy's from protocol::Policy, the deadline from
// supervisor::ProbeSession::Limits, the rounds from stats/timing.hpp).
// `mudjack run` fills it from flags over mudjack.toml over these defaults;
// `mudjack serve` from a request over the server's own defaults. The run
// stores it as RunInfo::options (JSON), so `--resume`, the server and reports
// read back exactly what ran.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/params.hpp"
#include "plan/plan.hpp"
#include "protocol/protocol.hpp"
#include "stats/timing.hpp"
#include "supervisor/probe_session.hpp"
#include "util/number.hpp"

namespace mudjack::run {

struct RunOptions {
  std::vector<plan::SuiteRef> suites;   // what the cases were listed from
  std::vector<std::string> frameworks;  // selection as asked (empty: every framework)
  std::vector<std::string> devices;     // selection as asked (empty: every device)
  std::string filter;                   // regular expression on case ids
  std::string profile = "current";      // pinned framework versions (envs/<profile>/)
  std::string baseline = "cpu";         // stored as RunInfo::baseline
  // deadline per case
  double timeout_s =
      std::chrono::duration<double>(supervisor::ProbeSession::Limits{}.case_timeout).count();
  double budget_ms = protocol::Policy{}.budget_ms;  // timing budget per case and round
  double warmup_ms = protocol::Policy{}.warmup_ms;
  int rounds = stats::kDefaultRounds;  // timing rounds of host-bound cases (stats/timing.hpp)
  int min_samples = protocol::Policy{}.min_samples;
  int max_samples = protocol::Policy{}.max_samples;
  int64_t memory_limit_bytes = 0;  // resident limit per probe; 0: default_memory_limit_bytes()
  int64_t seed = 0;                // seed for case inputs
  bool serial = false;             // devices one after another instead of parallel lanes
  // Probes of the cpu lane, each pinned to its own cores with its
  // frameworks' threads set to its share (supervisor::lay_out); 0: from
  // the host's cores and the other lanes (one per 2 cores left to cpu).
  int cpu_probes = 0;
  // Probes of an accelerator lane that runs several frameworks, one per
  // framework, taking turns on the device for everything but a case's cold
  // call (supervisor::lay_out); 0: three per framework, up to the lane's
  // cores; 1: one probe, the frameworks one after another.
  int device_probes = 0;
  // Run only the devices asked for: without it, asking for devices that do
  // not include the baseline runs the baseline too (its cases are the
  // comparison that checks the others).
  bool no_baseline = false;
  plan::Params params;                        // run parameters (--param NAME=VALUE)
  std::map<std::string, std::string> python;  // framework -> interpreter
  std::string via;                            // "serve" for runs a server made, else ""
  // How the selection narrowed the listed cases ("--dtype float16: 12 of 4783
  // cases"); "" when the run has every case its suites list. Reports say that
  // the verdicts cover only the selected cases.
  std::string narrowed;
  std::string command;  // the command line that made the run ("" for the API)
  // Saved outputs kept once the run is complete (run/retention.hpp).
  std::string keep_outputs = "failing";
  // The run policy of every case: "" runs each case as it declares
  // (CaseInfo::policy), "timed" or "once" overrides them all.
  std::string policy;
};

// 3/4 of this machine's RAM: the memory limit when none is given.
int64_t default_memory_limit_bytes();
// `bytes` when more than 0, else the default: every command's probes
// (run, check, list, repro, fuzz) resolve their limit here.
int64_t memory_limit_or_default(int64_t bytes);
// The limit a run's probes get, its listing probe included: the options'
// own, else the default.
int64_t memory_limit_of(const RunOptions& options);

// The range of every numeric run option, whoever sets it: flags (cli/cmd_run),
// mudjack.toml (cli/config), a POST /v1/runs body (server/request), a stored
// run (invalid() below). Written once, here: the API refuses exactly what the
// CLI refuses. NaN and the infinities are outside every range.
using Range = util::Range;  // util/number.hpp: the one parser of numeric flags reads these
using IntRange = util::IntRange;
inline constexpr Range kTimeoutRangeS{0, 24.0 * 3600, false};
inline constexpr Range kBudgetRangeMs{0, 600'000, false};
inline constexpr Range kWarmupRangeMs{0, 600'000, true};
// Up to 1 PiB, in MiB: far above any machine, far below int64 bytes.
inline constexpr Range kMemoryLimitRangeMb{0, 1024.0 * 1024 * 1024, false};
inline constexpr IntRange kSamplesRange{1, 1'000'000};
inline constexpr IntRange kRoundsRange{1, 20};
// 0 is the default (from the host); more probes than cores get one core each.
inline constexpr IntRange kCpuProbesRange{0, 1024};
inline constexpr IntRange kDeviceProbesRange{0, 16};
// Seeds are non-negative: the probe seeds NumPy's generators with
// seed * 1000003 + n (mudjack_probe/api.py), and NumPy refuses negative
// seeds, so a negative one would fail every case that draws inputs.
inline constexpr IntRange kSeedRange{0, INT64_MAX};

// One line naming `name` as the user wrote it ("--timeout-s",
// "run.timeout_s", "'timeout_s'") when a value is outside its range
// (util/number.hpp).
using util::out_of_range;
// A memory limit in MiB as bytes; `mb` must be in kMemoryLimitRangeMb.
int64_t mb_to_bytes(double mb);

// The devices a run plans: as asked, plus the baseline when devices were
// asked for, the baseline is not among them, and no_baseline is off. Empty:
// every device.
std::vector<std::string> planned_devices(const RunOptions& options);

// A one-line reason when the options cannot run (a number out of its range
// above, samples out of order); nullopt when they can. The names are the
// stored field names (timeout_s, ...).
std::optional<std::string> invalid(const RunOptions& options);

// The stored form (RunInfo::options), as `run` and `serve` have always
// written it; the baseline is not part of it (RunInfo::baseline).
nlohmann::json to_json(const RunOptions& options);
// Reads a stored run's options; fields an older run lacks take their
// defaults. Throws nlohmann::json errors on a field of the wrong type.
RunOptions from_json(const nlohmann::json& stored, const std::string& baseline);

}  // namespace mudjack::run
