#include "cli/cli.hpp"

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "cli/config.hpp"
#include "cli/progress.hpp"
#include "compare/compare.hpp"
#include "envs/envs.hpp"
#include "fleet/merge.hpp"
#include "fleet/sweep.hpp"
#include "oracle/compare.hpp"
#include "plan/plan.hpp"
#include "report/json.hpp"
#include "report/text.hpp"
#include "report/write.hpp"
#include "server/server.hpp"
#include "store/store.hpp"
#include "supervisor/supervisor.hpp"
#include "util/error.hpp"
#include "util/time.hpp"
#include "util/version.hpp"
#include "verdict/intolerable.hpp"
#include "verdict/verdict.hpp"

namespace mudjack::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_signal(int) {
  g_interrupted.store(true);
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a probe that died must not kill the engine on write
}

// Options every command shares.
struct Common {
  std::optional<std::string> config;
  std::string out;
  std::string profile;
  std::vector<std::string> python;  // framework=PATH
  bool json = false;
  std::optional<std::string> intolerable;  // thresholds file (run, report)
};

struct Settings {
  Config config;
  fs::path results_dir;
  std::map<std::string, std::string> python;
};

Settings settings(const Common& c) {
  Settings s;
  s.config = load_config(c.config ? std::optional<fs::path>(*c.config) : std::nullopt);
  if (!c.profile.empty()) {
    if (std::find(envs::kProfiles.begin(), envs::kProfiles.end(), c.profile) ==
        envs::kProfiles.end()) {
      throw util::FatalError("unknown profile '" + c.profile + "'; known: current, paper-2023");
    }
    s.config.profile = c.profile;
  }
  s.results_dir = c.out.empty() ? s.config.results_dir : fs::path(c.out);
  s.python = s.config.python;
  for (const auto& kv : c.python) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size()) {
      throw util::FatalError("--python expects FRAMEWORK=PATH, got '" + kv + "'");
    }
    auto fw = kv.substr(0, eq);
    if (std::find(envs::kFrameworks.begin(), envs::kFrameworks.end(), fw) ==
        envs::kFrameworks.end()) {
      throw util::FatalError("unknown framework '" + fw +
                             "' in --python; known: numpy, torch, jax, tensorflow");
    }
    s.python[fw] = kv.substr(eq + 1);
  }
  return s;
}

std::optional<fs::path> intolerable_path(const Common& c) {
  return c.intolerable ? std::optional<fs::path>(*c.intolerable) : std::nullopt;
}

void add_intolerable(CLI::App* app, Common& c) {
  app->add_option("--intolerable", c.intolerable,
                  "Latency thresholds file (default ./intolerable.toml if present, else 10x)");
}

void add_common(CLI::App* app, Common& c) {
  app->add_option("--config", c.config, "Settings file (default ./mudjack.toml if present)");
  app->add_option("--out", c.out, "Results folder (default ./mudjack-results)");
  app->add_option("--profile", c.profile, "Pinned framework versions: current | paper-2023");
  app->add_option("--python", c.python, "Interpreter for a framework: FRAMEWORK=PATH (repeatable)");
  app->add_flag("--json", c.json, "Machine-readable output on stdout");
}

std::vector<std::string> split_commas(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::stringstream ss(item);
    std::string part;
    while (std::getline(ss, part, ',')) {
      if (!part.empty()) out.push_back(part);
    }
  }
  return out;
}

void ensure_writable(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw util::FatalError("results folder " + dir.string() +
                           " cannot be created: " + (ec ? ec.message() : "not a folder"));
  }
  auto probe = dir / (".mudjack-write-test-" + std::to_string(::getpid()));
  std::ofstream f(probe);
  if (!f) throw util::FatalError("results folder " + dir.string() + " is not writable");
  f.close();
  fs::remove(probe, ec);
}

std::unique_ptr<store::Store> open_store(const fs::path& results_dir) {
  ensure_writable(results_dir);
  return store::Store::open(store::default_db_path(results_dir));
}

// For commands that read results: a missing database is an error, not a new one.
std::unique_ptr<store::Store> open_existing_store(const fs::path& results_dir,
                                                  const std::string& context = "") {
  auto db = store::default_db_path(results_dir);
  if (!fs::exists(db)) {
    throw util::FatalError(context + "no results database at " + db.string());
  }
  return store::Store::open(db);
}

// ---- devices ---------------------------------------------------------------

struct DevicesArgs {
  Common common;
  std::vector<std::string> frameworks;
};

int cmd_devices(const DevicesArgs& a) {
  auto s = settings(a.common);
  auto fws = split_commas(a.frameworks);
  plan::filter({}, fws, "");  // validates names
  auto d = plan::discover(fws, s.config.profile, s.python, g_interrupted);
  if (a.common.json) {
    json out = plan::environment_json(d);
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("%-8s %-10s %-40s %10s  %-28s %s\n", "DEVICE", "VENDOR", "MODEL", "MEMORY",
              "DRIVER/RUNTIME", "FRAMEWORKS");
  for (const auto& dev : d.devices) {
    std::string fws_seen;
    for (const auto& [fw, ids] : d.devices_of) {
      if (std::find(ids.begin(), ids.end(), dev.id) != ids.end()) {
        fws_seen += (fws_seen.empty() ? "" : ",") + fw;
      }
    }
    char mem[32];
    std::snprintf(mem, sizeof(mem), "%.1f GiB", static_cast<double>(dev.memory_bytes) / (1 << 30));
    std::string driver = dev.driver_version.empty()
                             ? dev.runtime_version
                             : dev.driver_version + " / " + dev.runtime_version;
    std::printf("%-8s %-10s %-40s %10s  %-28s %s\n", dev.id.c_str(),
                dev.vendor.substr(0, 10).c_str(), dev.model.substr(0, 40).c_str(), mem,
                driver.substr(0, 28).c_str(), fws_seen.c_str());
  }
  for (const auto& [fw, rt] : d.runtimes) {
    if (!rt.unavailable.empty())
      std::printf("%s: unavailable: %s\n", fw.c_str(), rt.unavailable.c_str());
  }
  return 0;
}

// ---- list ------------------------------------------------------------------

struct Selection {
  std::vector<std::string> suites;
  std::vector<std::string> suite_dirs;
  std::vector<std::string> frameworks;
  std::string filter;
  std::vector<std::string> params;  // NAME=VALUE
};

void add_selection(CLI::App* app, Selection& sel) {
  app->add_option("--param", sel.params,
                  "Case parameter NAME=VALUE, e.g. matrix_size=4096 (repeatable; overrides "
                  "[params] in mudjack.toml)");
  app->add_option("--suite", sel.suites, "Suite name (default paper; repeatable)");
  app->add_option("--suite-dir", sel.suite_dirs,
                  "A folder of your own case files (docs/suite-format.md)")
      ->check(CLI::ExistingDirectory);
  app->add_option("--framework", sel.frameworks,
                  "numpy, torch, jax, tensorflow (repeatable or comma list)");
  app->add_option("--filter", sel.filter, "Only case ids matching this regular expression");
}

std::vector<plan::SuiteRef> suites_of(const Selection& sel) {
  std::vector<plan::SuiteRef> refs;
  auto names = sel.suites;
  if (names.empty() && sel.suite_dirs.empty()) names.push_back("paper");
  for (const auto& n : names) refs.push_back(plan::resolve_suite(n));
  for (const auto& d : sel.suite_dirs) refs.push_back(plan::suite_from_dir(d));
  return refs;
}

// mudjack.toml's [params], then --param on top.
plan::Params params_of(const Selection& sel, const Settings& s) {
  plan::Params params = s.config.params;
  for (const auto& [name, value] : plan::parse_params(sel.params)) params[name] = value;
  return params;
}

// A --param no selected suite reads is a typo; [params] in mudjack.toml may
// hold parameters of suites this run does not select.
std::vector<model::CaseInfo> selected_cases(const Selection& sel, const Settings& s) {
  auto refs = suites_of(sel);
  json read;
  auto cases = plan::list_cases(refs, envs::listing_interpreter(s.config.profile, s.python),
                                params_of(sel, s), &read);
  plan::check_params(plan::parse_params(sel.params), read);
  return plan::filter(cases, split_commas(sel.frameworks), sel.filter);
}

struct ListArgs {
  Common common;
  Selection sel;
};

json case_json(const model::CaseInfo& c) {
  json j{{"id", c.id},           {"framework", c.framework}, {"function", c.function},
         {"variant", c.variant}, {"dtype", c.dtype},         {"shape", c.shape},
         {"dims", c.dims},       {"mode", c.mode},           {"compiler", c.compiler},
         {"params", c.params},   {"requires", c.requires_},  {"tags", c.tags}};
  if (!c.note.empty()) j["note"] = c.note;
  if (!c.successor.empty()) j["successor"] = c.successor;
  return j;
}

int cmd_list(const ListArgs& a) {
  auto s = settings(a.common);
  auto cases = selected_cases(a.sel, s);
  if (a.common.json) {
    json out = json::array();
    for (const auto& c : cases) out.push_back(case_json(c));
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::set<std::string> functions;
  for (const auto& c : cases) {
    functions.insert(c.framework + "/" + c.function);
    std::printf("%-70s %-9s %-8s %-8s\n", c.id.c_str(), c.dtype.c_str(), c.mode.c_str(),
                c.shape.c_str());
  }
  std::fprintf(stderr, "%zu cases of %zu functions\n", cases.size(), functions.size());
  return 0;
}

// ---- run -------------------------------------------------------------------

struct RunArgs {
  Common common;
  Selection sel;
  std::vector<std::string> devices;
  std::optional<double> timeout_s;
  std::optional<double> budget_ms;
  std::optional<double> memory_limit_mb;
  int min_samples = 5;
  int max_samples = 1000;
  double warmup_ms = 20;
  std::string resume;
  std::string baseline = "cpu";
  std::vector<std::string> fail_on;
  int64_t seed = 0;
  bool serial = false;
};

int64_t default_memory_limit_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  return static_cast<int64_t>(pages) * page * 3 / 4;
}

void print_summary(const std::vector<model::VerdictRow>& verdicts, const fs::path& run_dir,
                   const model::RunInfo& run) {
  std::map<std::pair<std::string, std::string>, std::map<std::string, int>> table;
  for (const auto& v : verdicts)
    ++table[{v.framework, v.device}][std::string(model::to_string(v.verdict))];
  std::printf("\nrun %s (%s): verdicts per framework and device\n", run.id.c_str(),
              run.state.c_str());
  int width = 8;
  for (const auto& v : verdicts) width = std::max(width, static_cast<int>(v.device.size()));
  std::printf("%-11s %-*s %9s %9s %9s %9s %12s %11s\n", "FRAMEWORK", width, "DEVICE", "portable",
              "partial", "complete", "divergent", "intolerable", "unavailable");
  for (const auto& [key, by_verdict] : table) {
    const auto& counts = by_verdict;  // a lambda may not capture a structured binding in clang
    auto n = [&](const char* k) {
      auto it = counts.find(k);
      return it == counts.end() ? 0 : it->second;
    };
    std::printf("%-11s %-*s %9d %9d %9d %9d %12d %11d\n", key.first.c_str(), width,
                key.second.c_str(), n("portable"), n("partial_failure"), n("complete_failure"),
                n("divergent"), n("intolerable_latency"), n("unavailable"));
  }
  std::printf("reports: %s/{results.json,results.csv,junit.xml,summary.md,report.html}\n",
              run_dir.c_str());
}

int finish_run(store::Store& store, const std::string& run_id, bool completed, const Settings& s,
               const RunArgs& a) {
  store.set_run_state(run_id, completed ? "complete" : "incomplete", util::now_iso8601());
  auto run = *store.get_run(run_id);
  auto results = store.results(run_id);
  verdict::Options vo;
  vo.baseline = run.baseline;
  vo = verdict::thresholds_for(intolerable_path(a.common), vo);
  auto verdicts = verdict::compute(results, vo);
  auto run_dir = s.results_dir / "runs" / run_id;
  report::write_all(run_dir, run, results, verdicts);
  if (a.common.json) {
    std::cout << report::render("json", run, results, verdicts) << "\n";
  } else {
    print_summary(verdicts, run_dir, run);
  }
  if (!completed) {
    std::fprintf(
        stderr,
        "mudjack: interrupted; %zu outcomes kept. Resume with: mudjack run --resume %s --out %s\n",
        results.size(), run_id.c_str(), s.results_dir.c_str());
    return 130;
  }
  auto fail_on = split_commas(a.fail_on);
  for (const auto& v : verdicts) {
    if (std::find(fail_on.begin(), fail_on.end(), model::to_string(v.verdict)) != fail_on.end()) {
      return 1;
    }
  }
  return 0;
}

int cmd_run(const RunArgs& a) {
  for (const auto& v : split_commas(a.fail_on)) {
    if (!model::parse_verdict(v)) {
      throw util::FatalError("unknown verdict '" + v +
                             "' in --fail-on; known: unavailable, complete_failure, "
                             "partial_failure, divergent, intolerable_latency, portable");
    }
  }
  // A bad thresholds file fails now, not after the run.
  verdict::thresholds_for(intolerable_path(a.common), verdict::Options{});
  auto s = settings(a.common);
  auto store = open_store(s.results_dir);

  std::string run_id;
  json options;
  std::vector<model::CaseInfo> cases;
  if (!a.resume.empty()) {
    auto run = store->get_run(a.resume);
    if (!run) {
      throw util::FatalError("unknown run '" + a.resume + "' in " + s.results_dir.string() +
                             " (see: mudjack runs --out " + s.results_dir.string() + ")");
    }
    run_id = run->id;
    options = run->options;
    cases = store->cases(run_id);
  } else {
    cases = selected_cases(a.sel, s);
    if (cases.empty()) throw util::FatalError("no cases match the selection");
    options = {
        {"suites", json::array()},
        {"frameworks", split_commas(a.sel.frameworks)},
        {"devices", a.devices},
        {"filter", a.sel.filter},
        {"profile", s.config.profile},
        {"timeout_s", a.timeout_s.value_or(s.config.timeout_s.value_or(120))},
        {"budget_ms", a.budget_ms.value_or(s.config.budget_ms.value_or(100))},
        {"min_samples", a.min_samples},
        {"max_samples", a.max_samples},
        {"warmup_ms", a.warmup_ms},
        {"memory_limit_bytes",
         a.memory_limit_mb || s.config.memory_limit_mb
             ? static_cast<int64_t>(
                   a.memory_limit_mb.value_or(s.config.memory_limit_mb.value_or(0)) * 1048576)
             : default_memory_limit_bytes()},
        {"seed", a.seed},
        {"serial", a.serial},
        {"params", plan::params_to_json(params_of(a.sel, s))},
        {"python", s.python}};
    for (const auto& ref : suites_of(a.sel)) {
      options["suites"].push_back({{"name", ref.name}, {"dir", ref.dir.string()}});
    }
  }
  if (options.at("min_samples").get<int>() < 1 ||
      options.at("max_samples").get<int>() < options.at("min_samples").get<int>()) {
    throw util::FatalError("--min-samples must be >= 1 and <= --max-samples");
  }

  std::set<std::string> fw_set;
  for (const auto& c : cases) fw_set.insert(c.framework);
  std::map<std::string, std::string> python =
      options.value("python", std::map<std::string, std::string>{});
  auto discovery = plan::discover({fw_set.begin(), fw_set.end()},
                                  options.value("profile", "current"), python, g_interrupted);

  std::vector<std::pair<std::string, std::string>> work_ids;
  if (a.resume.empty()) {
    work_ids = plan::pairs(cases, discovery, options["devices"].get<std::vector<std::string>>());
    if (work_ids.empty())
      throw util::FatalError("nothing to run: no selected device for these cases");
    run_id = util::new_run_id();
    model::RunInfo run;
    run.id = run_id;
    std::string suite_names;
    for (const auto& sref : options["suites"]) {
      suite_names += (suite_names.empty() ? "" : ",") + sref["name"].get<std::string>();
    }
    run.suite = suite_names;
    run.state = "running";
    run.created_at = util::now_iso8601();
    run.baseline = a.baseline;
    run.options = options;
    run.environment = plan::environment_json(discovery);
    store->create_run(run);
    store->add_plan(run_id, cases, work_ids);
  } else {
    store->set_environment(run_id, plan::environment_json(discovery));
    store->set_run_state(run_id, "running", "");
    work_ids = store->remaining(run_id);
  }

  std::map<std::string, const model::CaseInfo*> by_id;
  for (const auto& c : cases) by_id[c.id] = &c;
  std::vector<std::pair<model::CaseInfo, std::string>> work;
  for (const auto& [case_id, device] : work_ids) work.emplace_back(*by_id.at(case_id), device);
  auto spec = plan::run_spec(run_id, options, store->get_run(run_id)->baseline, std::move(work),
                             discovery.runtimes, s.results_dir);
  auto run_dir = s.results_dir / "runs" / run_id;

  auto plan_size = store->plan(run_id).size();
  std::map<std::string, size_t> per_device;
  for (const auto& [case_id, device] : work_ids) ++per_device[device];
  Progress progress(plan_size, plan_size - work_ids.size(), per_device, isatty(2) != 0, stderr);
  if (!a.common.json) {
    std::fprintf(stderr, "run %s: %zu cases on %zu devices (%zu pairs to run); results in %s\n",
                 run_id.c_str(), by_id.size(), per_device.size(), work_ids.size(), run_dir.c_str());
  }
  bool completed = supervisor::execute(
      spec, *store, [&](const model::CaseResult& r) { progress.on_result(r); }, g_interrupted);
  progress.finish();
  return finish_run(*store, run_id, completed, s, a);
}

// ---- compare -----------------------------------------------------------------

struct CompareArgs {
  Common common;
  std::string a, b;
  double threshold = 1.2;
  double alpha = 0.01;
  std::string format = "md";
};

std::string resolve_run_id(store::Store& store, const std::string& id, const fs::path& dir);

struct Loaded {
  report::Results results;
  std::string origin;  // the file, or "run <id>"
};

// WHAT is a results.json file, or a run id (or 'latest') in the results folder.
Loaded load_run_or_file(const std::string& what, const Settings& s) {
  Loaded out;
  std::error_code ec;
  const bool looks_like_file =
      what.find('/') != std::string::npos || (what.size() > 5 && what.ends_with(".json"));
  if (looks_like_file && !fs::exists(what, ec)) {
    throw util::FatalError("cannot read " + what + ": no such file");
  }
  if (fs::is_regular_file(what, ec)) {
    out.results = report::load_json(what);
    out.origin = what;
    return out;
  }
  auto store =
      open_existing_store(s.results_dir, "'" + what + "' is neither a results.json nor a run: ");
  auto id = resolve_run_id(*store, what, s.results_dir);
  out.results.schema_version = std::string(model::kResultsSchemaVersion);
  out.results.run = *store->get_run(id);
  out.results.cases = store->results(id);
  out.origin = "run " + id;
  return out;
}

// SPEC is RUN[@DEVICE] (a run id in the results folder, or 'latest') or
// FILE[@DEVICE] (a results.json).
compare::Side load_side(const std::string& spec, const Settings& s) {
  compare::Side side;
  std::string what = spec;
  if (auto at = spec.rfind('@'); at != std::string::npos) {
    what = spec.substr(0, at);
    side.device = spec.substr(at + 1);
  }
  auto loaded = load_run_or_file(what, s);
  side.results = std::move(loaded.results.cases);
  what = loaded.origin;
  if (!side.device.empty() &&
      std::none_of(side.results.begin(), side.results.end(),
                   [&](const model::CaseResult& r) { return r.device == side.device; })) {
    throw util::FatalError("no results for device '" + side.device + "' in " + what);
  }
  side.label = what + (side.device.empty() ? "" : " @ " + side.device);
  return side;
}

int cmd_compare(const CompareArgs& a) {
  if (a.format != "md" && a.format != "json") {
    throw util::FatalError("unknown compare format '" + a.format + "' (known: md, json)");
  }
  auto s = settings(a.common);
  compare::Options o;
  o.threshold = a.threshold;
  o.alpha = a.alpha;
  auto report = compare::compare(load_side(a.a, s), load_side(a.b, s), o);
  if (a.common.json || a.format == "json") {
    std::cout << compare::to_json(report).dump(1) << "\n";
  } else {
    std::cout << compare::to_markdown(report);
  }
  return report.regressed() ? 1 : 0;
}

// ---- merge -------------------------------------------------------------------

struct MergeArgs {
  Common common;
  std::vector<std::string> sources;
};

// SOURCE is FILE[=LABEL] (a results.json) or RUN[=LABEL] (a run in --out).
fleet::Source load_source(const std::string& spec, const Settings& s) {
  fleet::Source src;
  std::string what = spec;
  if (auto eq = spec.rfind('='); eq != std::string::npos) {
    what = spec.substr(0, eq);
    src.label = spec.substr(eq + 1);
  }
  auto loaded = load_run_or_file(what, s);
  src.results = std::move(loaded.results);
  src.origin = std::move(loaded.origin);
  if (src.label.empty()) src.label = fleet::default_label(src.results);
  return src;
}

int cmd_merge(const MergeArgs& a) {
  verdict::thresholds_for(intolerable_path(a.common), verdict::Options{});
  auto s = settings(a.common);
  std::vector<fleet::Source> sources;
  for (const auto& spec : a.sources) sources.push_back(load_source(spec, s));
  auto merged = fleet::merge(sources, util::now_iso8601());
  auto store = open_store(s.results_dir);
  fleet::save(*store, merged);
  verdict::Options vo;
  vo.baseline = merged.run.baseline;
  vo = verdict::thresholds_for(intolerable_path(a.common), vo);
  auto verdicts = verdict::compute(merged.cases, vo);
  auto run_dir = s.results_dir / "runs" / merged.run.id;
  report::write_all(run_dir, merged.run, merged.cases, verdicts);
  if (a.common.json) {
    std::cout << report::render("json", merged.run, merged.cases, verdicts) << "\n";
  } else {
    for (const auto& src : sources) {
      std::printf("%-24s %-28s %zu results\n", src.label.c_str(), src.origin.c_str(),
                  src.results.cases.size());
    }
    print_summary(verdicts, run_dir, merged.run);
  }
  return 0;
}

// ---- repro -------------------------------------------------------------------

struct ReproArgs {
  Common common;
  Selection sel;
  std::string case_id;
  std::string device = "cpu";
  std::string run;
  std::string output;
};

int cmd_repro(const ReproArgs& a) {
  auto s = settings(a.common);
  auto all =
      plan::list_cases(suites_of(a.sel), envs::listing_interpreter(s.config.profile, s.python));
  auto found = std::find_if(all.begin(), all.end(),
                            [&](const model::CaseInfo& c) { return c.id == a.case_id; });
  if (found == all.end()) {
    throw util::FatalError("unknown case '" + a.case_id +
                           "' (see: mudjack list; --suite or --suite-dir for other suites)");
  }
  const model::CaseInfo info = *found;

  protocol::ReproRequest req;
  req.case_id = info.id;
  auto tol = oracle::default_tolerance(info.dtype);
  // What a run saw, when there is one: the outcome, the seed, the baseline's outputs.
  std::error_code ec;
  if (!a.run.empty() || fs::exists(s.results_dir / "mudjack.db", ec)) {
    auto store = open_existing_store(s.results_dir);
    std::string run_id;
    if (!a.run.empty()) {
      run_id = resolve_run_id(*store, a.run, s.results_dir);
    } else {
      for (const auto& r : store->list_runs()) {
        if (store->result(r.id, info.id, a.device)) {
          run_id = r.id;
          break;
        }
      }
    }
    if (!run_id.empty()) {
      auto run = *store->get_run(run_id);
      req.seed = run.options.value("seed", int64_t{0});
      if (auto seen = store->result(run_id, info.id, a.device)) {
        req.seen =
            std::string(model::to_string(seen->outcome)) + " on " + a.device + " in run " + run_id;
        if (auto msg = report::failure_text(*seen); !msg.empty()) req.seen += ": " + msg;
      } else if (!a.run.empty()) {
        throw util::FatalError("run " + run_id + " has no result for " + info.id + " on " +
                               a.device);
      }
      if (a.device != run.baseline) {
        if (auto base = store->result(run_id, info.id, run.baseline)) {
          for (const auto& o : base->outputs) {
            if (!fs::exists(o.path, ec)) {
              req.expected.clear();
              break;
            }
            req.expected.push_back(o.path);
            tol = oracle::default_tolerance(o.dtype);
          }
        }
      }
    }
  }
  if (info.rtol) tol.rtol = *info.rtol;
  if (info.atol) tol.atol = *info.atol;
  req.rtol = tol.rtol;
  req.atol = tol.atol;

  auto discovery = plan::discover({info.framework}, s.config.profile, s.python, g_interrupted);
  const auto& rt = discovery.runtimes.at(info.framework);
  if (rt.python.empty() || !rt.unavailable.empty()) {
    throw util::FatalError(info.framework + " is unavailable here: " + rt.unavailable);
  }
  supervisor::ProbeCommand cmd;
  cmd.python = rt.python;
  cmd.probe_dir = envs::data_dir() / "probe";
  for (const auto& ref : suites_of(a.sel)) cmd.suite_dirs.push_back(ref.dir);
  cmd.framework = info.framework;
  cmd.device = a.device;
  std::string error;
  auto session = supervisor::ProbeSession::start(cmd, {}, g_interrupted, &error);
  if (!session) throw util::FatalError("probe did not start: " + error.substr(0, error.find('\n')));
  if (!session->hello().unavailable.empty()) {
    throw util::FatalError(info.framework + " cannot run on " + a.device + ": " +
                           session->hello().unavailable);
  }
  auto repro = session->repro(req, &error);
  session->stop();
  if (!repro)
    throw util::FatalError("probe failed to write the script: " +
                           error.substr(0, error.find('\n')));
  if (!repro->unwritable.empty()) {
    throw util::FatalError("cannot write " + info.id + " as a script: " + repro->unwritable, 1);
  }
  if (a.output.empty()) {
    std::cout << repro->script;
  } else {
    report::write_file_atomically(a.output, repro->script);
    fs::permissions(a.output,
                    fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, ec);
    std::fprintf(stderr, "wrote %s (run it with %s's python)\n", a.output.c_str(),
                 info.framework.c_str());
  }
  return 0;
}

// ---- report / runs -----------------------------------------------------------

struct ReportArgs {
  Common common;
  std::string run;
  std::string format = "md";
  std::string baseline;
};

std::string resolve_run_id(store::Store& store, const std::string& id, const fs::path& dir) {
  if (id == "latest") {
    auto runs = store.list_runs();
    if (runs.empty()) throw util::FatalError("no runs in " + dir.string());
    return runs.front().id;
  }
  if (!store.get_run(id)) {
    throw util::FatalError("unknown run '" + id + "' in " + dir.string() + " (see: mudjack runs)");
  }
  return id;
}

int cmd_report(const ReportArgs& a) {
  auto s = settings(a.common);
  auto loaded = load_run_or_file(a.run, s);  // a results.json is judged again
  model::RunInfo run = std::move(loaded.results.run);
  std::vector<model::CaseResult> results = std::move(loaded.results.cases);
  if (!a.baseline.empty()) run.baseline = a.baseline;
  verdict::Options vo;
  vo.baseline = run.baseline;
  vo = verdict::thresholds_for(intolerable_path(a.common), vo);
  auto verdicts = verdict::compute(results, vo);
  std::cout << report::render(a.common.json ? "json" : a.format, run, results, verdicts);
  return 0;
}

int cmd_runs(const Common& c) {
  auto s = settings(c);
  auto store = open_existing_store(s.results_dir);
  auto runs = store->list_runs();
  if (c.json) {
    json out = json::array();
    for (const auto& r : runs) {
      out.push_back({{"id", r.id},
                     {"suite", r.suite},
                     {"state", r.state},
                     {"created_at", r.created_at},
                     {"finished_at", r.finished_at},
                     {"results", store->results(r.id).size()},
                     {"planned", store->plan(r.id).size()}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("%-22s %-10s %-11s %-25s %s\n", "RUN", "SUITE", "STATE", "CREATED", "DONE/PLANNED");
  for (const auto& r : runs) {
    std::printf("%-22s %-10s %-11s %-25s %zu/%zu\n", r.id.c_str(), r.suite.c_str(), r.state.c_str(),
                r.created_at.c_str(), store->results(r.id).size(), store->plan(r.id).size());
  }
  return 0;
}

// ---- serve -------------------------------------------------------------------

struct ServeArgs {
  Common common;
  std::vector<std::string> suites;
  std::vector<std::string> suite_dirs;
  std::vector<std::string> frameworks;
  std::string host = "127.0.0.1";
  int port = 8080;
  std::optional<std::string> port_file;
  std::optional<std::string> token_file;
  bool no_auth = false;
  int backlog = 4096;
  size_t threads = 64;
  size_t max_body_bytes = server::kDefaultMaxBodyBytes;
  double drain_s = 0;
  double keepalive_s = 15;
  std::optional<double> timeout_s;
  std::optional<double> budget_ms;
  std::optional<double> memory_limit_mb;
};

int cmd_serve(const ServeArgs& a) {
  auto s = settings(a.common);
  verdict::thresholds_for(intolerable_path(a.common), verdict::Options{});  // fail now, not later
  server::ServeOptions o;
  o.host = a.host;
  o.port = a.port;
  o.backlog = a.backlog;
  o.threads = a.threads;
  o.max_body_bytes = a.max_body_bytes;
  o.no_auth = a.no_auth;
  o.token = server::resolve_token(
      a.token_file ? std::optional<fs::path>(*a.token_file) : std::nullopt, a.no_auth);
  if (a.port_file) o.port_file = fs::path(*a.port_file);
  for (const auto& n : a.suites) o.suites.push_back(plan::resolve_suite(n));
  for (const auto& d : a.suite_dirs) o.suites.push_back(plan::suite_from_dir(d));
  o.frameworks = split_commas(a.frameworks);
  plan::filter({}, o.frameworks, "");  // validates names
  o.defaults.results_dir = s.results_dir;
  o.defaults.profile = s.config.profile;
  o.defaults.python = s.python;
  o.defaults.timeout_s = a.timeout_s.value_or(s.config.timeout_s.value_or(120));
  o.defaults.budget_ms = a.budget_ms.value_or(s.config.budget_ms.value_or(100));
  o.defaults.memory_limit_bytes =
      a.memory_limit_mb || s.config.memory_limit_mb
          ? static_cast<int64_t>(a.memory_limit_mb.value_or(s.config.memory_limit_mb.value_or(0)) *
                                 1048576)
          : default_memory_limit_bytes();
  o.defaults.intolerable = intolerable_path(a.common);
  o.defaults.params = s.config.params;
  o.drain_grace = std::chrono::milliseconds(static_cast<int64_t>(a.drain_s * 1000));
  o.keepalive = std::chrono::milliseconds(static_cast<int64_t>(a.keepalive_s * 1000));
  auto store = open_store(s.results_dir);
  return server::serve(o, *store, g_interrupted);
}

// ---- sweep -------------------------------------------------------------------

struct SweepArgs {
  Common common;
  std::string targets;
  bool resume = false;
  int retries = 5;
  double backoff_ms = 500;
  double connect_timeout_s = 5;
  double read_timeout_s = 60;
};

int cmd_sweep(const SweepArgs& a) {
  verdict::thresholds_for(intolerable_path(a.common), verdict::Options{});
  if (a.common.out.empty()) throw util::FatalError("sweep needs --out DIR");
  fleet::SweepOptions o;
  o.targets_file = a.targets;
  o.out = a.common.out;
  o.resume = a.resume;
  o.retries = a.retries;
  o.backoff = std::chrono::milliseconds(static_cast<int64_t>(a.backoff_ms));
  o.connect_timeout = std::chrono::milliseconds(static_cast<int64_t>(a.connect_timeout_s * 1000));
  o.read_timeout = std::chrono::milliseconds(static_cast<int64_t>(a.read_timeout_s * 1000));
  o.intolerable = intolerable_path(a.common);
  o.json = a.common.json;
  return fleet::sweep(o, g_interrupted);
}

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
  CLI::App app{
      "mudjack: do the framework functions you rely on run, agree and run fast on this chip?"};
  app.set_version_flag("--version",
                       std::string(util::version()) + " (" + std::string(util::revision()) + ")");
  app.require_subcommand(1);

  DevicesArgs devices_args;
  ListArgs list_args;
  RunArgs run_args;
  ReportArgs report_args;
  Common runs_args;
  CompareArgs compare_args;
  MergeArgs merge_args;
  ReproArgs repro_args;
  ServeArgs serve_args;
  SweepArgs sweep_args;
  int rc = 0;

  // The command table: --help prints it (CONTRIBUTING.md rule 5).
  struct Command {
    const char* name;
    const char* summary;
    std::function<void(CLI::App*)> setup;
    std::function<int()> action;
  };
  std::vector<Command> commands = {
      {"devices", "List the devices each framework sees here, with driver and memory",
       [&](CLI::App* c) {
         add_common(c, devices_args.common);
         c->add_option("--framework", devices_args.frameworks, "Only these frameworks");
       },
       [&] { return cmd_devices(devices_args); }},
      {"list", "List the cases of a suite (metadata only; no framework needed)",
       [&](CLI::App* c) {
         add_common(c, list_args.common);
         add_selection(c, list_args.sel);
       },
       [&] { return cmd_list(list_args); }},
      {"run", "Run a suite on every local device; store outcomes; write reports",
       [&](CLI::App* c) {
         add_common(c, run_args.common);
         add_intolerable(c, run_args.common);
         add_selection(c, run_args.sel);
         c->add_option("--device", run_args.devices,
                       "Only these devices (cpu, cuda:0, ...; repeatable)");
         c->add_option("--timeout-s", run_args.timeout_s,
                       "Deadline per case, seconds (default 120)")
             ->check(CLI::PositiveNumber);
         c->add_option("--budget-ms", run_args.budget_ms,
                       "Timing budget per case, ms (default 100)")
             ->check(CLI::PositiveNumber);
         c->add_option("--min-samples", run_args.min_samples, "Minimum timed samples (default 5)");
         c->add_option("--max-samples", run_args.max_samples,
                       "Maximum timed samples (default 1000)");
         c->add_option("--warmup-ms", run_args.warmup_ms, "Warm-up time per case, ms (default 20)")
             ->check(CLI::NonNegativeNumber);
         c->add_option("--memory-limit-mb", run_args.memory_limit_mb,
                       "Resident memory limit per probe (default 3/4 of RAM)")
             ->check(CLI::PositiveNumber);
         c->add_option("--resume", run_args.resume, "Finish an interrupted run: RUN id");
         c->add_option("--baseline", run_args.baseline,
                       "Device every other is compared with (default cpu)");
         c->add_option("--fail-on", run_args.fail_on,
                       "Exit 1 if any verdict is one of these (comma list)");
         c->add_option("--seed", run_args.seed, "Seed for case inputs (default 0)");
         c->add_flag("--serial", run_args.serial, "Run devices one after another");
       },
       [&] { return cmd_run(run_args); }},
      {"report", "Render a stored run: json, csv, junit, md or html",
       [&](CLI::App* c) {
         add_common(c, report_args.common);
         add_intolerable(c, report_args.common);
         c->add_option("run", report_args.run, "Run id, 'latest', or a results.json file")
             ->required();
         c->add_option("--format", report_args.format,
                       "json | csv | junit | md | html (default md)");
         c->add_option("--baseline", report_args.baseline, "Baseline device (default: the run's)");
       },
       [&] { return cmd_report(report_args); }},
      {"compare", "Compare two runs or devices case by case; exit 1 on a regression",
       [&](CLI::App* c) {
         add_common(c, compare_args.common);
         c->add_option("a", compare_args.a, "RUN[@DEVICE] or results.json[@DEVICE] (the reference)")
             ->required();
         c->add_option("b", compare_args.b, "RUN[@DEVICE] or results.json[@DEVICE]")->required();
         c->add_option("--threshold", compare_args.threshold,
                       "Median ratio counted as a change, either way (default 1.2)")
             ->check(CLI::Range(1.0, 1e9));
         c->add_option("--alpha", compare_args.alpha,
                       "Significance level of the U test (default 0.01)")
             ->check(CLI::Range(0.0, 1.0));
         c->add_option("--format", compare_args.format, "md | json (default md)");
       },
       [&] { return cmd_compare(compare_args); }},
      {"merge", "Merge runs of several machines into one run, devices labelled by machine",
       [&](CLI::App* c) {
         add_common(c, merge_args.common);
         add_intolerable(c, merge_args.common);
         c->add_option("sources", merge_args.sources,
                       "results.json[=LABEL] or RUN[=LABEL] (default label: the chip model)")
             ->required();
       },
       [&] { return cmd_merge(merge_args); }},
      {"repro", "Write one case as a standalone Python script for a bug report",
       [&](CLI::App* c) {
         add_common(c, repro_args.common);
         c->add_option("--suite", repro_args.sel.suites, "Suite name (default paper; repeatable)");
         c->add_option("--suite-dir", repro_args.sel.suite_dirs, "A folder of your own case files")
             ->check(CLI::ExistingDirectory);
         c->add_option("case", repro_args.case_id, "Case id (see: mudjack list)")->required();
         c->add_option("--device", repro_args.device, "Device to reproduce on (default cpu)");
         c->add_option("--run", repro_args.run,
                       "Run whose outcome and baseline outputs to use (default: the newest run "
                       "with this case on this device, if any)");
         c->add_option("-o,--output", repro_args.output, "Write the script here (default stdout)");
       },
       [&] { return cmd_repro(repro_args); }},
      {"runs", "List the runs in a results folder", [&](CLI::App* c) { add_common(c, runs_args); },
       [&] { return cmd_runs(runs_args); }},
      {"serve", "Serve the HTTP API: start runs, follow their events, fetch results",
       [&](CLI::App* c) {
         add_common(c, serve_args.common);
         add_intolerable(c, serve_args.common);
         c->add_option("--suite", serve_args.suites,
                       "Suites offered (default: every known suite; repeatable)");
         c->add_option("--suite-dir", serve_args.suite_dirs, "Offer a folder of case files too")
             ->check(CLI::ExistingDirectory);
         c->add_option("--framework", serve_args.frameworks,
                       "Frameworks offered (default all; repeatable or comma list)");
         c->add_option("--host", serve_args.host, "Address to bind (default 127.0.0.1)");
         c->add_option("--port", serve_args.port, "Port (default 8080; 0 picks a free one)")
             ->check(CLI::Range(0, 65535));
         c->add_option("--port-file", serve_args.port_file, "Write the bound port to this file");
         c->add_option("--token-file", serve_args.token_file,
                       "Bearer token file (default: $MUDJACK_TOKEN)");
         c->add_flag("--no-auth", serve_args.no_auth, "Serve without a token (trusted networks)");
         c->add_option("--backlog", serve_args.backlog, "listen(2) backlog (default 4096)")
             ->check(CLI::Range(1, 1 << 20));
         c->add_option("--threads", serve_args.threads, "HTTP worker threads (default 64)")
             ->check(CLI::Range(5, 4096));
         c->add_option("--max-body-bytes", serve_args.max_body_bytes,
                       "Largest request body (default 65536)")
             ->check(CLI::Range(64, 64 << 20));
         c->add_option("--drain-s", serve_args.drain_s,
                       "On SIGTERM, seconds running runs get to finish before cancel (default 0)")
             ->check(CLI::NonNegativeNumber);
         c->add_option("--keepalive-s", serve_args.keepalive_s,
                       "Comment on an idle event stream every N seconds (default 15)")
             ->check(CLI::Range(0.05, 3600.0));
         c->add_option("--timeout-s", serve_args.timeout_s, "Default deadline per case, seconds")
             ->check(CLI::PositiveNumber);
         c->add_option("--budget-ms", serve_args.budget_ms, "Default timing budget per case, ms")
             ->check(CLI::PositiveNumber);
         c->add_option("--memory-limit-mb", serve_args.memory_limit_mb,
                       "Resident memory limit per probe (default 3/4 of RAM)")
             ->check(CLI::PositiveNumber);
       },
       [&] { return cmd_serve(serve_args); }},
      {"sweep", "Run on every endpoint of a targets file; merge into one cross-chip report",
       [&](CLI::App* c) {
         c->add_option("--targets", sweep_args.targets, "Targets file (TOML, or JSON by .json)")
             ->required()
             ->check(CLI::ExistingFile);
         c->add_option("--out", sweep_args.common.out,
                       "Sweep folder: state, per-target results, merged store and reports")
             ->required();
         add_intolerable(c, sweep_args.common);
         c->add_flag("--json", sweep_args.common.json, "The merged results.json on stdout");
         c->add_flag("--resume", sweep_args.resume, "Continue the sweep in --out");
         c->add_option("--retries", sweep_args.retries,
                       "Retries of a failing call before a target is given up (default 5)")
             ->check(CLI::Range(0, 100));
         c->add_option("--backoff-ms", sweep_args.backoff_ms,
                       "First retry delay, doubling up to 10 s (default 500)")
             ->check(CLI::Range(1.0, 600000.0));
         c->add_option("--connect-timeout-s", sweep_args.connect_timeout_s,
                       "Connection timeout (default 5)")
             ->check(CLI::Range(0.01, 600.0));
         c->add_option("--read-timeout-s", sweep_args.read_timeout_s,
                       "Silence that counts as a lost target (default 60)")
             ->check(CLI::Range(0.05, 3600.0));
       },
       [&] { return cmd_sweep(sweep_args); }},
  };
  app.footer(
      "Exit codes: 0 run completed (whatever the verdicts), 1 --fail-on matched or compare found a "
      "regression or new failure, "
      "2 bad usage or input, 130 interrupted.");
  for (auto& cmd : commands) {
    auto* sub = app.add_subcommand(cmd.name, cmd.summary);
    cmd.setup(sub);
    sub->callback([&rc, &cmd] { rc = cmd.action(); });
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const util::FatalError& e) {
    std::fprintf(stderr, "mudjack: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {  // a library threw what should have been a FatalError
    std::fprintf(stderr, "mudjack: error: unexpected: %s\n", e.what());
    return 2;
  }
  return rc;
}

}  // namespace mudjack::cli
