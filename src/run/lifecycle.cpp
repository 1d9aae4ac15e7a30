#include "run/lifecycle.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "envs/envs.hpp"
#include "envs/source.hpp"
#include "report/write.hpp"
#include "run/lease.hpp"
#include "run/retention.hpp"
#include "stats/timing.hpp"
#include "util/error.hpp"
#include "util/time.hpp"
#include "verdict/claims.hpp"
#include "verdict/intolerable.hpp"

namespace mudjack::run {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Run ids carry 16 random bits: a collision is retried.
constexpr int kRunIdAttempts = 20;

std::string suite_names(const RunOptions& o) {
  std::string names;
  for (const auto& ref : o.suites) names += (names.empty() ? "" : ",") + ref.name;
  return names;
}

std::string free_run_id(store::Store& store) {
  for (int attempt = 0; attempt < kRunIdAttempts; ++attempt) {
    auto id = util::new_run_id();
    if (!store.get_run(id)) return id;
  }
  throw util::FatalError("cannot find a free run id");
}

// (case id, device) pairs with their metadata; pairs whose case has no
// metadata in the plan cannot run and are left out.
std::vector<std::pair<model::CaseInfo, std::string>> with_cases(
    const std::vector<model::CaseInfo>& cases,
    const std::vector<std::pair<std::string, std::string>>& ids) {
  std::map<std::string, const model::CaseInfo*> by_id;
  for (const auto& c : cases) by_id[c.id] = &c;
  std::vector<std::pair<model::CaseInfo, std::string>> work;
  for (const auto& [case_id, device] : ids) {
    auto it = by_id.find(case_id);
    if (it != by_id.end()) work.emplace_back(*it->second, device);
  }
  return work;
}

supervisor::RunSpec spec_of(const Prepared& run, const plan::Discovery& discovery,
                            const Place& place) {
  const RunOptions& o = run.options;
  supervisor::RunSpec spec;
  spec.run_id = run.info.id;
  spec.work = run.work;
  spec.frameworks = discovery.runtimes;
  spec.probe_dir = envs::data_dir() / "probe";
  for (const auto& ref : o.suites) spec.suite_dirs.push_back(ref.dir);
  spec.params = o.params;
  spec.artifact_root = run_dir(place, run.info.id) / "artifacts";
  spec.policy.budget_ms = o.budget_ms;
  spec.policy.min_samples = o.min_samples;
  spec.policy.max_samples = o.max_samples;
  spec.policy.warmup_ms = o.warmup_ms;
  // A slow call gets the fewest samples its spread allows (stats/timing.hpp).
  spec.policy.slow_call_ms = stats::kSlowCallMs;
  spec.policy.slow_min_samples = std::min(stats::kSlowMinSamples, o.min_samples);
  spec.policy.slow_spread = stats::kUnstableSpread;
  spec.limits.case_timeout = std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000));
  spec.limits.memory_limit_bytes = memory_limit_of(o);
  spec.baseline = run.info.baseline;
  spec.baseline_planned = run.baseline_planned;
  spec.seed = o.seed;
  spec.parallel = !o.serial;
  spec.cpu_probes = o.cpu_probes;
  spec.device_probes = o.device_probes;
  spec.rounds = o.rounds;
  spec.policy_override = o.policy;
  return spec;
}

// The baseline must be a device of the run (a typo such as `gpu0` would
// otherwise leave every device unjudged, silently). Nothing is checked when
// no framework found a device: every case is then `unavailable` anyway.
void check_baseline(const RunOptions& options, const plan::Discovery& discovery) {
  if (discovery.devices.empty() || options.no_baseline) return;
  std::string known;
  for (const auto& d : discovery.devices) {
    if (d.id == options.baseline) return;
    known += (known.empty() ? "" : ", ") + d.id;
  }
  throw util::FatalError("--baseline " + options.baseline +
                         " is not a device here (devices: " + known + ")");
}

// Where this execution's probes run (their cores and threads), recorded in
// the run's environment as `layout` of its machine: a resumed run records
// its own execution's.
void record_layout(store::Store& store, const std::string& run_id,
                   const supervisor::Layout& layout) {
  auto info = store.get_run(run_id);
  if (!info) return;
  json env = info->environment;
  if (!env.is_object() || !env.contains("machines") || !env["machines"].is_array() ||
      env["machines"].empty() || !env["machines"][0].is_object()) {
    return;
  }
  env["machines"][0]["layout"] = layout.to_json();
  store.set_environment(run_id, env);
}

// The framework versions a machine's environment records, {name: version}.
json framework_versions(const json& machine) {
  json out = json::object();
  const auto fws = machine.is_object() ? machine.value("frameworks", json::object()) : json();
  if (!fws.is_object()) return out;
  for (const auto& [fw, f] : fws.items()) {
    out[fw] = f.is_object() ? f.value("version", json()) : json();
  }
  return out;
}

// A resumed run keeps the environment its first execution recorded (source
// state, frameworks, host) and appends each later execution's to its
// machine's `resumed` list, so that `report --publish` refuses a run whose
// executions disagree (one started dirty and finished clean).
void record_resume(store::Store& store, const model::RunInfo& info, const json& now) {
  json env = info.environment;
  const auto& machines = env.is_object() ? env.value("machines", json()) : json();
  if (!machines.is_array() || machines.empty() || !machines[0].is_object()) {
    store.set_environment(info.id, now);  // nothing recorded to keep
    return;
  }
  const json& m = now["machines"][0];
  json entry = {{"at", util::now_iso8601()},
                {"host", m.value("host", "")},
                {"mudjack_revision", m.value("mudjack_revision", "")},
                {"source", m.value("source", json())},
                {"frameworks", framework_versions(m)}};
  json& first = env["machines"][0];
  if (!first.contains("resumed") || !first["resumed"].is_array()) first["resumed"] = json::array();
  first["resumed"].push_back(std::move(entry));
  store.set_environment(info.id, env);
}

// An engine built from a dirty tree (its revision stamp ends in "-dirty"):
// the run's source is committed, the code that judged and timed it is not.
std::optional<std::string> dirty_engine(const json& machine) {
  const auto revision = machine.value("mudjack_revision", std::string());
  if (!revision.ends_with("-dirty")) return std::nullopt;
  return "its engine was built from a dirty tree (revision " + revision + ")";
}

// Why a machine's resumed executions disagree with its first one (another
// host, source or framework version), or nullopt.
std::optional<std::string> resumed_apart(const json& machine) {
  const auto resumed = machine.value("resumed", json());
  if (!resumed.is_array()) return std::nullopt;
  const auto source = machine.value("source", json());
  const auto commit = source.is_object() ? source.value("commit", json()) : json();
  const auto versions = framework_versions(machine);
  for (const auto& r : resumed) {
    if (!r.is_object()) return "a resumed execution's record is malformed";
    const auto at = r.value("at", std::string());
    if (auto why = envs::unpublishable(r.value("source", json()))) {
      return "resumed at " + at + ": " + *why;
    }
    const auto rsource = r.value("source", json());
    const auto rcommit = rsource.is_object() ? rsource.value("commit", json()) : json();
    if (rcommit != commit) {
      return "resumed at " + at + " from another source (commit " +
             (rcommit.is_string() ? rcommit.get<std::string>().substr(0, 12) : "unknown") +
             ", started at " +
             (commit.is_string() ? commit.get<std::string>().substr(0, 12) : "unknown") + ")";
    }
    if (r.value("host", std::string()) != machine.value("host", std::string())) {
      return "resumed at " + at + " on another host (" + r.value("host", std::string()) + ")";
    }
    const auto rversions = r.value("frameworks", json::object());
    if (!rversions.is_object()) return "a resumed execution's record is malformed";
    for (const auto& [fw, v] : rversions.items()) {
      if (versions.contains(fw) && versions[fw] != v) {
        return "resumed at " + at + " with another " + fw + " (" + v.dump() + ", started with " +
               versions[fw].dump() + ")";
      }
    }
  }
  return std::nullopt;
}

}  // namespace

fs::path run_dir(const Place& place, const std::string& run_id) {
  return place.results_dir / "runs" / run_id;
}

plan::Discovery discover(const RunOptions& options, const std::vector<model::CaseInfo>& cases,
                         const std::atomic<bool>& interrupted) {
  std::set<std::string> frameworks;
  for (const auto& c : cases) frameworks.insert(c.framework);
  return plan::discover({frameworks.begin(), frameworks.end()}, options.profile, options.python,
                        interrupted);
}

Prepared create(store::Store& store, const RunOptions& options,
                const std::vector<model::CaseInfo>& cases, const plan::Discovery& discovery,
                std::string_view state) {
  if (auto why = invalid(options)) throw util::FatalError(*why);
  if (cases.empty()) throw util::FatalError("no cases match the selection");
  check_baseline(options, discovery);
  auto ids = plan::pairs(cases, discovery, planned_devices(options));
  if (ids.empty()) throw util::FatalError("nothing to run: no selected device for these cases");
  Prepared p;
  p.options = options;
  p.cases = cases;
  p.info.id = free_run_id(store);
  p.info.suite = suite_names(options);
  p.info.state = std::string(state);
  p.info.created_at = util::now_iso8601();
  p.info.baseline = options.baseline;
  p.info.options = to_json(options);
  p.info.environment = plan::environment_json(discovery);
  store.create_run(p.info);
  store.add_plan(p.info.id, cases, ids);
  p.work = with_cases(cases, ids);
  p.planned = ids.size();
  p.baseline_planned = std::any_of(ids.begin(), ids.end(),
                                   [&](const auto& id) { return id.second == options.baseline; });
  return p;
}

Prepared reopen(store::Store& store, const std::string& run_id) {
  auto info = store.get_run(run_id);
  if (!info) throw util::FatalError("unknown run '" + run_id + "'");
  Prepared p;
  p.info = *info;
  try {
    p.options = from_json(info->options, info->baseline);
  } catch (const nlohmann::json::exception& e) {
    throw util::FatalError("run '" + run_id +
                           "' has stored options that cannot be read: " + e.what());
  }
  // A run stored before these options were checked must not run again with
  // a value that fails every case (a NaN timeout, a negative seed).
  if (auto why = invalid(p.options)) {
    throw util::FatalError("run '" + run_id + "' has stored options that cannot run: " + *why);
  }
  p.cases = store.cases(run_id);
  auto remaining = store.remaining(run_id);
  const auto plan = store.plan(run_id);
  p.planned = plan.size();
  p.baseline_planned = std::any_of(plan.begin(), plan.end(),
                                   [&](const auto& id) { return id.second == info->baseline; });
  p.done = p.planned - remaining.size();
  p.work = with_cases(p.cases, remaining);
  return p;
}

void resume(store::Store& store, const Prepared& run, const plan::Discovery& discovery,
            std::string_view state) {
  // Never touch a run another execution holds (execute() takes the lease).
  if (auto holder = lease_holder(store, run.info.id)) throw util::FatalError(*holder);
  record_resume(store, *store.get_run(run.info.id), plan::environment_json(discovery));
  store.set_run_state(run.info.id, std::string(state), "");
}

bool execute(store::Store& store, const Prepared& run, const plan::Discovery& discovery,
             const Place& place, const supervisor::ResultListener& on_result,
             const std::atomic<bool>& interrupt, std::string* fault) {
  Watch watch(store, run.info.id, interrupt);  // FatalError when another execution holds it
  store.set_run_state(run.info.id, "running", "");
  auto spec = spec_of(run, discovery, place);
  spec.layout = supervisor::layout_for(spec);
  record_layout(store, run.info.id, *spec.layout);
  const bool completed = supervisor::execute(spec, store, on_result, watch.stop(), fault);
  if (auto why = watch.end()) throw util::FatalError(*why);
  return completed;
}

verdict::Judged finish(store::Store& store, const std::string& run_id, bool completed,
                       const Place& place) {
  // Reports beside no database would look like a run that worked.
  if (!store.still_at_path()) {
    throw util::FatalError("results database " + store.path().string() +
                           " was deleted or replaced during run " + run_id +
                           "; its outcomes are lost");
  }
  store.set_run_state(run_id, completed ? "complete" : "incomplete", util::now_iso8601());
  auto cases = store.results(run_id);
  if (!completed) {
    // A case whose rounds were under way when the run stopped stays held
    // (--resume adds its missing rounds); the reports show it as it is.
    for (auto& h : store.held(run_id)) {
      stats::finish_rounds(h.result.latency);
      h.result.extra["rounds_held"] = h.rounds;
      cases.push_back(std::move(h.result));
    }
  }
  auto judged = publish(*store.get_run(run_id), std::move(cases), place);
  if (completed) {  // a resumed run's oracle still compares with saved outputs
    const auto keep = parse_keep(judged.run.options.value("keep_outputs", "failing"));
    prune_outputs(run_dir(place, run_id), judged.cases, keep.value_or(Keep::kFailing));
  }
  return judged;
}

namespace {

// The torch version the run's machines record (the first that names one).
std::string torch_version(const model::RunInfo& run) {
  const auto machines =
      run.environment.is_object() ? run.environment.value("machines", json()) : json();
  for (const auto& m : machines.is_array() ? machines : json::array()) {
    const auto torch =
        m.is_object() ? m.value("frameworks", json::object()).value("torch", json()) : json();
    if (torch.is_object() && torch.value("version", json()).is_string()) {
      return torch["version"].get<std::string>();
    }
  }
  return {};
}

// The paper suite's torch functions' domains from OpInfo
// (suites/paper/opinfo-claims.json, scripts/update-paper-opinfo-claims.py),
// for the cases that carry no claims of their own.
void paper_claims(const model::RunInfo& run, std::vector<model::CaseResult>& cases) {
  const auto path = envs::data_dir() / "suites" / "paper" / "opinfo-claims.json";
  std::ifstream f(path);
  if (!f) return;
  const auto map = json::parse(f, nullptr, /*allow_exceptions=*/false);
  if (map.is_discarded()) throw util::FatalError(path.string() + " is not JSON");
  verdict::apply_claims_map(map, "torch", torch_version(run), cases);
}

}  // namespace

verdict::Judged judge(model::RunInfo run, std::vector<model::CaseResult> cases,
                      const std::optional<fs::path>& intolerable) {
  auto options = verdict::options_for(run.baseline, intolerable);
  paper_claims(run, cases);
  return verdict::judge(std::move(run), std::move(cases), options);
}

std::optional<std::string> unpublishable(const model::RunInfo& run) {
  const auto machines =
      run.environment.is_object() ? run.environment.value("machines", json()) : json();
  if (!machines.is_array() || machines.empty()) {
    return "run " + run.id + " records no machine, so no source state";
  }
  for (const auto& m : machines) {
    const auto source = m.is_object() ? m.value("source", json()) : json();
    const std::string host = m.is_object() ? m.value("host", std::string()) : std::string();
    auto why = envs::unpublishable(source);
    if (!why && m.is_object()) why = dirty_engine(m);
    if (!why && m.is_object()) why = resumed_apart(m);
    if (why) return "run " + run.id + (host.empty() ? "" : " (on " + host + ")") + ": " + *why;
  }
  return std::nullopt;
}

std::vector<double> compact_samples(const std::vector<double>& samples, size_t keep) {
  // 4 significant digits: the judge reads ratios to 3.
  auto round4 = [](double v) {
    if (v == 0 || !std::isfinite(v)) return v;
    const double p = std::pow(10.0, std::floor(std::log10(std::fabs(v))) - 3);
    return std::round(v / p) * p;
  };
  std::vector<double> out;
  if (samples.size() <= keep) {
    out = samples;
  } else if (keep > 0) {
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    const double last = static_cast<double>(sorted.size() - 1);
    for (size_t i = 0; i < keep; ++i) {  // the quantiles (i + 0.5) / keep
      const double at = (static_cast<double>(i) + 0.5) / static_cast<double>(keep) * last;
      const auto lo = static_cast<size_t>(std::floor(at));
      const size_t hi = std::min(lo + 1, sorted.size() - 1);
      out.push_back(sorted[lo] + (at - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]));
    }
  }
  for (auto& v : out) v = round4(v);
  return out;
}

namespace {

// A published page travels without the run's artifacts: the paths of the
// outputs a probe saved (the case's, its float64 reference's, its second
// call's) name files on the machine that ran it. Their dtypes and shapes stay.
void forget_artifacts(model::CaseResult& c) {
  for (auto& o : c.outputs) o.path.clear();
  if (!c.extra.is_object()) return;
  for (auto& [key, value] : c.extra.items()) {
    if (!value.is_object() || !value.contains("outputs") || !value["outputs"].is_array()) continue;
    for (auto& o : value["outputs"]) {
      if (o.is_object()) o.erase("path");
    }
  }
}

}  // namespace

size_t publish_evidence(verdict::Judged judged, const fs::path& dir,
                        const std::optional<fs::path>& intolerable) {
  if (auto why = unpublishable(judged.run)) throw util::FatalError("will not publish " + *why);
  for (auto& c : judged.cases) {
    c.latency.samples_ns = compact_samples(c.latency.samples_ns, kPublishedSamples);
    forget_artifacts(c);
  }
  // The page is the judgement of what it keeps, so a re-judge reads it back.
  std::map<std::tuple<std::string, std::string, std::string>, std::string> before;
  for (const auto& v : judged.verdicts) {
    before[{v.framework, v.function, v.device}] =
        std::string(model::to_string(v.verdict)) + "\n" + v.reason;
  }
  auto again = judge(judged.run, std::move(judged.cases), intolerable);
  size_t differ = 0;
  for (const auto& v : again.verdicts) {
    auto it = before.find({v.framework, v.function, v.device});
    if (it == before.end() ||
        it->second != std::string(model::to_string(v.verdict)) + "\n" + v.reason) {
      ++differ;
    }
  }
  report::write_all(dir, again);
  return differ;
}

verdict::Judged publish(model::RunInfo run, std::vector<model::CaseResult> cases,
                        const Place& place) {
  auto judged = judge(std::move(run), std::move(cases), place.intolerable);
  report::write_all(run_dir(place, judged.run.id), judged);
  return judged;
}

}  // namespace mudjack::run
