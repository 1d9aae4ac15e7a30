// mudjack run: a suite on every local device, through the run lifecycle.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/numbers.hpp"
#include "cli/progress.hpp"
#include "report/terminal.hpp"
#include "report/write.hpp"
#include "run/lease.hpp"
#include "run/lifecycle.hpp"
#include "util/error.hpp"
#include "verdict/expected.hpp"

namespace mudjack::cli {
namespace {
namespace fs = std::filesystem;

// Flags left unset take mudjack.toml's value, else run::RunOptions' default.
struct RunArgs {
  Common common;
  Selection sel;
  std::vector<std::string> devices;
  std::optional<double> timeout_s;
  std::optional<double> budget_ms;
  std::optional<double> memory_limit_mb;
  std::optional<int> min_samples;
  std::optional<int> max_samples;
  std::optional<double> warmup_ms;
  std::optional<int> rounds;
  std::optional<int> cpu_probes;
  std::optional<int> device_probes;
  std::optional<int64_t> seed;
  std::optional<std::string> baseline;
  std::optional<std::string> resume;  // a run id or 'latest'; set but empty is an error
  std::vector<std::string> fail_on;
  bool serial = false;
  bool no_baseline = false;
  bool last_failed = false;          // only what did not pass in the newest run
  bool exitfirst = false;            // stop at the first case that does not pass
  std::optional<std::string> xfail;  // expected-failures file
  std::optional<std::string> keep_outputs;
  std::optional<std::string> policy;  // every case's run policy (else as each declares)
};

std::string with_default(const std::string& what, double value) {
  std::ostringstream s;
  s << what << " (default " << value << ")";
  return s.str();
}

void check_fail_on(const std::vector<std::string>& fail_on) {
  for (const auto& v : split_commas(fail_on)) {
    if (model::parse_verdict(v)) continue;
    std::string known;
    for (auto k : model::kVerdicts)
      known += (known.empty() ? "" : ", ") + std::string(model::to_string(k));
    throw util::FatalError("unknown verdict '" + v + "' in --fail-on; known: " + known);
  }
}

run::RunOptions options_of(const RunArgs& a, const Settings& s) {
  run::RunOptions o;
  o.suites = suites_of(a.sel);
  o.frameworks = split_commas(a.sel.frameworks);
  o.devices = a.devices;
  o.filter = a.sel.filter;
  o.profile = s.config.profile;
  o.python = s.python;
  o.params = params_of(a.sel, s);
  o.baseline = a.baseline.value_or(o.baseline);
  o.timeout_s = a.timeout_s.value_or(s.config.timeout_s.value_or(o.timeout_s));
  o.budget_ms = a.budget_ms.value_or(s.config.budget_ms.value_or(o.budget_ms));
  if (auto mb = a.memory_limit_mb ? a.memory_limit_mb : s.config.memory_limit_mb) {
    o.memory_limit_bytes = run::mb_to_bytes(*mb);
  }
  o.min_samples = a.min_samples.value_or(o.min_samples);
  o.max_samples = a.max_samples.value_or(o.max_samples);
  o.warmup_ms = a.warmup_ms.value_or(o.warmup_ms);
  o.rounds = a.rounds.value_or(o.rounds);
  o.cpu_probes = a.cpu_probes.value_or(s.config.cpu_probes.value_or(o.cpu_probes));
  o.device_probes = a.device_probes.value_or(o.device_probes);
  o.seed = a.seed.value_or(o.seed);
  o.serial = a.serial;
  o.no_baseline = a.no_baseline;
  o.command = invocation();
  o.keep_outputs = a.keep_outputs.value_or(o.keep_outputs);
  o.policy = a.policy.value_or(o.policy);
  if (auto why = run::invalid(o)) throw util::FatalError(*why);
  return o;
}

// The run to execute: a new one, or the stored one --resume names.
struct Started {
  run::Prepared run;
  plan::Discovery discovery;
};

// The run --resume names ('latest': the newest), free to execute here.
std::string resume_id(const std::string& wanted, const Settings& s, store::Store& store) {
  const std::string see = " (see: mudjack runs --out " + s.results_dir.string() + ")";
  std::string id = wanted;
  if (wanted == "latest") {
    auto runs = store.list_runs();
    if (runs.empty()) throw util::FatalError("no runs to resume in " + s.results_dir.string());
    id = runs.front().id;
  } else if (!store.get_run(wanted)) {
    throw util::FatalError("unknown run '" + wanted + "' in " + s.results_dir.string() + see);
  }
  // Refused before the devices are discovered; execute() takes the lease.
  if (auto holder = run::lease_holder(store, id)) throw util::FatalError(*holder);
  return id;
}

// --last-failed: of `cases`, those that did not pass in the newest run
// (every one when nothing failed there, as pytest does), and why in `narrowed`.
std::vector<model::CaseInfo> last_failed(const std::vector<model::CaseInfo>& cases, size_t listed,
                                         const Settings& s, store::Store& store,
                                         std::string& narrowed) {
  auto runs = store.list_runs();
  if (runs.empty()) {
    throw util::FatalError("--last-failed: no earlier run in " + s.results_dir.string());
  }
  const auto& last = runs.front();
  const auto failed = plan::failed_ids(store.results(last.id));
  if (failed.empty()) {
    std::fprintf(stderr, "mudjack: run %s had no failures; running the whole selection\n",
                 last.id.c_str());
    return cases;
  }
  auto out = plan::only(cases, failed);
  if (out.empty()) {
    throw util::FatalError("--last-failed: none of the " + std::to_string(failed.size()) +
                           " cases that failed in run " + last.id + " is in this selection");
  }
  narrowed = "--last-failed (run " + last.id + ")" +
             (narrowed.empty() ? "" : " " + narrowed.substr(0, narrowed.rfind(':'))) + ": " +
             std::to_string(out.size()) + " of " + std::to_string(listed) + " cases";
  return out;
}

Started start(const RunArgs& a, const Settings& s, store::Store& store) {
  Started st;
  if (a.resume) {
    st.run = run::reopen(store, resume_id(*a.resume, s, store));
    st.discovery = run::discover(st.run.options, st.run.cases, interrupted());
    run::resume(store, st.run, st.discovery, "running");
    return st;
  }
  auto options = options_of(a, s);
  size_t listed = 0;
  auto cases = selected_cases(a.sel, s, &listed, run::memory_limit_of(options));
  options.narrowed = narrowing(a.sel, cases.size(), listed);
  if (a.last_failed) cases = last_failed(cases, listed, s, store, options.narrowed);
  if (cases.empty()) throw util::FatalError("no cases match the selection");
  st.discovery = run::discover(options, cases, interrupted());
  st.run = run::create(store, options, cases, st.discovery, "running");
  return st;
}

// What -x does not stop at: a pass, a case that could not be attempted here,
// and an expected failure.
bool passed_or_excused(const model::CaseResult& r, const std::vector<verdict::Expected>& expected) {
  if (!model::props(r.outcome).judged) return false;  // the suite's own error
  return !model::props(r.outcome).failure || verdict::is_expected(expected, r);
}

// Why no case could be attempted (every one unavailable or skipped): the
// distinct reasons, and where to look; nullopt when something ran.
std::optional<std::string> nothing_attempted(const verdict::Judged& judged) {
  std::set<std::string> reasons;
  for (const auto& r : judged.cases) {
    const auto p = model::props(r.outcome);
    if (p.attempted || !p.judged) return std::nullopt;  // not unavailable nor skipped
    reasons.insert(r.error.message);
  }
  if (judged.cases.empty()) return std::nullopt;
  std::string why = "nothing could be attempted: every case is unavailable or skipped";
  size_t shown = 0;
  for (const auto& reason : reasons) {
    if (shown++ == 3) {
      why += "; and " + std::to_string(reasons.size() - 3) + " more reasons";
      break;
    }
    why += "; " + reason;
  }
  return why + ". See what is missing, and the command that installs it: mudjack doctor";
}

int exit_code(const verdict::Judged& judged, bool completed, const std::string& fault,
              const RunArgs& a, const Settings& s, const std::vector<verdict::Expected>& expected) {
  if (!fault.empty()) {  // the machine failed, not a framework: nothing stored for that pair
    std::fprintf(stderr,
                 "mudjack: error: the run stopped on a machine fault: %s; %zu outcomes kept. Once "
                 "fixed, resume with: mudjack run --resume %s --out %s\n",
                 fault.c_str(), judged.cases.size(), judged.run.id.c_str(), s.results_dir.c_str());
    return 2;
  }
  if (!completed) {
    std::fprintf(
        stderr,
        "mudjack: interrupted; %zu outcomes kept. Resume with: mudjack run --resume %s --out %s\n",
        judged.cases.size(), judged.run.id.c_str(), s.results_dir.c_str());
    return 130;
  }
  if (auto why = nothing_attempted(judged)) {
    std::fprintf(stderr, "mudjack: error: %s\n", why->c_str());
    return 3;
  }
  // A broken suite answers nothing about the framework: never a green run.
  const auto errors = std::count_if(judged.cases.begin(), judged.cases.end(), [](const auto& r) {
    return r.outcome == model::Outcome::kError;
  });
  if (errors > 0) {
    std::fprintf(stderr, "mudjack: %ld cases are suite errors (the suite's own code; see above)\n",
                 static_cast<long>(errors));
    return 1;
  }
  if (!expected.empty()) {
    const auto report = verdict::check_expected(expected, judged.cases);
    std::fprintf(stderr, "expected failures (%s): %zu listed cases still fail\n", a.xfail->c_str(),
                 report.still_failing.size());
    if (!report.passing.empty()) {
      std::fprintf(stderr, "mudjack: %zu listed cases now pass; remove them from %s:\n",
                   report.passing.size(), a.xfail->c_str());
      for (const auto* r : report.passing) {
        std::fprintf(stderr, "  %s %s\n", r->info.id.c_str(), r->device.c_str());
      }
      return 1;
    }
  }
  auto fail_on = split_commas(a.fail_on);
  for (const auto& v : judged.verdicts) {
    if (std::find(fail_on.begin(), fail_on.end(), model::to_string(v.verdict)) != fail_on.end() &&
        !verdict::all_expected(expected, v)) {
      return 1;
    }
  }
  return 0;
}

int run_suite(const RunArgs& a) {
  check_fail_on(a.fail_on);
  if (a.resume && a.resume->empty()) {  // an unset variable in a script: never a new run
    throw util::FatalError("--resume needs a run id (or 'latest'), got an empty one");
  }
  check_intolerable(a.common);  // a bad thresholds file fails now, not after the run
  const auto expected =
      a.xfail ? verdict::read_expected(*a.xfail) : std::vector<verdict::Expected>{};
  auto s = settings(a.common);
  if (a.resume && !a.resume->empty() && !fs::exists(store::default_db_path(s.results_dir))) {
    throw util::FatalError("unknown run '" + *a.resume + "': no results database in " +
                           s.results_dir.string());
  }
  auto store = open_store(s.results_dir);
  auto st = start(a, s, *store);
  const run::Place place{s.results_dir, intolerable_path(a.common)};
  const auto dir = run::run_dir(place, st.run.info.id);

  std::map<std::string, size_t> per_device;
  for (const auto& [info, device] : st.run.work) ++per_device[device];
  Progress progress(st.run.planned, st.run.done, per_device, isatty(2) != 0, stderr);
  if (!a.common.json) {
    std::fprintf(stderr, "run %s: %zu cases on %zu devices (%zu pairs to run); results in %s\n",
                 st.run.info.id.c_str(), st.run.cases.size(), per_device.size(), st.run.work.size(),
                 dir.c_str());
  }
  std::string fault;
  std::optional<model::CaseResult> first_failure;  // -x: the case that stopped the run
  const bool completed = run::execute(
      *store, st.run, st.discovery, place,
      [&](const model::CaseResult& r) {
        progress.on_result(r);
        if (a.exitfirst && !first_failure && !passed_or_excused(r, expected)) {
          first_failure = r;
          interrupted().store(true);
        }
      },
      interrupted(), &fault);
  progress.finish();
  if (!fault.empty()) progress.fault(fault);
  auto judged = run::finish(*store, st.run.info.id, completed, place);
  if (a.common.json) {
    std::cout << report::render("json", judged) << "\n";
  } else {
    std::cout << report::to_terminal(judged, dir);
  }
  std::cout.flush();  // the table before any closing line on stderr
  if (first_failure && !completed) {
    std::fprintf(stderr,
                 "mudjack: stopped at the first failure (-x): %s on %s: %s. The rest: mudjack run "
                 "--resume %s --out %s\n",
                 first_failure->info.id.c_str(), first_failure->device.c_str(),
                 std::string(model::to_string(first_failure->outcome)).c_str(),
                 judged.run.id.c_str(), s.results_dir.c_str());
    return 1;
  }
  return exit_code(judged, completed, fault, a, s, expected);
}

void add_run_flags(CLI::App* c, RunArgs& a) {
  const run::RunOptions d;
  c->add_option("--device", a.devices, "Only these devices (cpu, cuda:0, ...; repeatable)");
  // Parsed and range-checked by one parser (cli/numbers.hpp), with the same
  // bounds as mudjack.toml and the API (run/options.hpp).
  add_number(c, "--timeout-s", a.timeout_s, run::kTimeoutRangeS,
             with_default("Deadline per case, seconds", d.timeout_s));
  add_number(c, "--budget-ms", a.budget_ms, run::kBudgetRangeMs,
             with_default("Timing budget per case and round, ms", d.budget_ms));
  add_number(c, "--min-samples", a.min_samples, run::kSamplesRange,
             with_default("Minimum timed samples", d.min_samples));
  add_number(c, "--max-samples", a.max_samples, run::kSamplesRange,
             with_default("Maximum timed samples", d.max_samples));
  add_number(c, "--warmup-ms", a.warmup_ms, run::kWarmupRangeMs,
             with_default("Warm-up time per case and round, ms", d.warmup_ms));
  add_number(
      c, "--rounds", a.rounds, run::kRoundsRange,
      with_default("Timing rounds of each host-bound case, interleaved across cases", d.rounds));
  add_number(c, "--cpu-probes", a.cpu_probes, run::kCpuProbesRange,
             "Probes of the cpu lane, each pinned to its own cores with its threads set to "
             "them (default 0: one per 2 cores left to it beside the other lanes)");
  add_number(c, "--device-probes", a.device_probes, run::kDeviceProbesRange,
             "Probes of an accelerator lane with several frameworks, each on one framework, "
             "taking turns on the device for all but a case's first call (default 0: three "
             "per framework, one core each, up to 3/8 of the host's cores; 1: one probe)");
  add_number(c, "--memory-limit-mb", a.memory_limit_mb, run::kMemoryLimitRangeMb,
             "Resident memory limit per probe (default 3/4 of RAM)");
  c->add_option("--resume", a.resume, "Finish an interrupted run: RUN id, or 'latest'");
  c->add_option("--baseline", a.baseline,
                "Device every other is compared with (default " + d.baseline + ")");
  c->add_option("--fail-on", a.fail_on, "Exit 1 if any verdict is one of these (comma list)");
  add_number(c, "--seed", a.seed, run::kSeedRange,
             with_default("Seed for case inputs", static_cast<double>(d.seed)));
  c->add_flag("--serial", a.serial, "Run devices one after another");
  c->add_option("--keep-outputs", a.keep_outputs,
                "Saved outputs kept once the run is complete: failing (default: what findings and "
                "repro need), all, none");
  c->add_option("--policy", a.policy,
                "Run every case timed (measured) or once (one call, judged, no timing); default: "
                "as each suite declares (whole-surface suites: once)")
      ->check(CLI::IsMember({"timed", "once"}));
  c->add_flag("--last-failed", a.last_failed,
              "Only the cases that did not pass in the newest run here (all when none failed)");
  c->add_flag("-x,--exitfirst", a.exitfirst,
              "Stop at the first case that fails, diverges or is a suite error (resumable)");
  c->add_option("--xfail", a.xfail,
                "Expected-failures file: lines 'CASE_ID [DEVICE]' (globs allowed); listed cases "
                "that fail are expected, one that passes is an error")
      ->check(CLI::ExistingFile);
  c->add_flag("--no-baseline", a.no_baseline,
              "With --device: run only those devices, not the baseline too (their passes are "
              "then checked only by the cases' own checks)");
}

}  // namespace

Command run_command() {
  return {"run", "Run a suite on every local device; store outcomes; write reports",
          [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<RunArgs>();
            add_common(c, a->common);
            add_intolerable(c, a->common);
            add_selection(c, a->sel);
            add_run_flags(c, *a);
            return [a] { return run_suite(*a); };
          }};
}

}  // namespace mudjack::cli
