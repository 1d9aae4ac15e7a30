#include "fuzz/campaign.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "envs/envs.hpp"
#include "fuzz/report.hpp"
#include "gen/ops.hpp"
#include "gen/reduce.hpp"
#include "os/process.hpp"
#include "report/write.hpp"
#include "run/lifecycle.hpp"
#include "store/store.hpp"
#include "supervisor/probe_session.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

namespace mudjack::fuzz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

// report::write_file_atomically, its folder created first.
void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  report::write_file_atomically(p, text);
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw util::FatalError(p.string() + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw util::FatalError(p.string() + ": not JSON (" + std::string(e.what()) + ")");
  }
}

// Sets `stop` when the caller is interrupted or the deadline passes.
class Deadline {
 public:
  Deadline(const std::atomic<bool>& interrupted, Clock::time_point end)
      : interrupted_(interrupted), end_(end), watcher_([this] { watch(); }) {}
  ~Deadline() {
    done_ = true;
    watcher_.join();
  }
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  const std::atomic<bool>& stop() const { return stop_; }
  bool passed() const { return Clock::now() >= end_; }
  double left_s() const { return std::chrono::duration<double>(end_ - Clock::now()).count(); }

 private:
  void watch() {
    while (!done_) {
      if (interrupted_ || Clock::now() >= end_) stop_ = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  const std::atomic<bool>& interrupted_;
  Clock::time_point end_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  std::thread watcher_;
};

struct Listed {
  std::vector<model::CaseInfo> cases;
  std::map<std::string, model::CaseInfo> backend;  // backend -> a case of it (framework, mode)
};

Listed list(const Options& o, const fs::path& graphs) {
  const auto python = envs::listing_interpreter(o.profile, o.python);
  if (python.python.empty()) throw util::FatalError(python.missing_reason, 3);
  Listed l;
  for (auto& c : plan::list_cases({o.suite}, python, {{"graphs", graphs.string()}})) {
    auto id = parse_case_id(c.id);
    if (!id) continue;
    l.backend.try_emplace(id->second, c);
    if (o.backends.empty() ||
        std::find(o.backends.begin(), o.backends.end(), id->second) != o.backends.end()) {
      l.cases.push_back(std::move(c));
    }
  }
  for (const auto& b : o.backends) {
    if (l.backend.count(b) == 0) {
      std::vector<std::string> known;
      for (const auto& [name, c] : l.backend) known.push_back(name);
      throw util::FatalError("unknown backend '" + b + "' (known: " + join(known, ", ") + ")");
    }
  }
  return l;
}

run::RunOptions run_options(const Options& o, const fs::path& graphs,
                            const std::vector<std::string>& devices) {
  run::RunOptions r;
  r.suites = {o.suite};
  r.devices = devices;
  r.profile = o.profile;
  r.python = o.python;
  r.params = {{"graphs", graphs.string()}};
  r.seed = o.seed;
  r.timeout_s = o.timeout_s;
  // A fuzz case needs its median for `slow`, not a measurement to publish.
  r.budget_ms = 2;
  r.warmup_ms = 1;
  r.rounds = 1;
  r.min_samples = 3;
  r.max_samples = 200;
  r.command = o.command;
  if (auto why = run::invalid(r)) throw util::FatalError(*why);
  return r;
}

// run::discover under the campaign's stop flag. Discovery answers a raised
// flag with FatalError "interrupted" (exit 130), meant for a signal; here the
// flag is also the budget's end, the normal end of a campaign, so a stop is a
// value: nullopt, and the batch stays incomplete for --resume. Whether a
// signal raised it is the caller's to say (Campaign::go).
std::optional<plan::Discovery> discover_in_budget(const run::RunOptions& options,
                                                  const std::vector<model::CaseInfo>& cases,
                                                  const std::atomic<bool>& stop) {
  if (stop) return std::nullopt;
  try {
    return run::discover(options, cases, stop);
  } catch (const util::FatalError& e) {
    if (stop && e.exit_code() == 130) return std::nullopt;
    throw;
  }
}

// One run over `cases` (already listed from `graphs`); its judged cases. None,
// and *completed false, when `stop` came before the run was made.
std::vector<model::CaseResult> run_cases(
    const Options& o, const fs::path& graphs, const std::vector<model::CaseInfo>& cases,
    const std::vector<std::string>& devices, const fs::path& results_dir,
    const std::optional<fs::path>& intolerable, const std::atomic<bool>& stop,
    const std::function<void(const std::string&)>& created, bool* completed) {
  auto store = store::Store::open(store::default_db_path(results_dir));
  auto options = run_options(o, graphs, devices);
  std::set<std::string> frameworks;
  for (const auto& c : cases) frameworks.insert(c.framework);
  options.frameworks.assign(frameworks.begin(), frameworks.end());
  const auto discovery = discover_in_budget(options, cases, stop);
  if (!discovery) {
    if (completed != nullptr) *completed = false;
    return {};
  }
  auto prepared = run::create(*store, options, cases, *discovery, "running");
  if (created) created(prepared.info.id);  // recorded before anything runs: resumable
  const run::Place place{results_dir, intolerable};
  std::string fault;
  const bool done = run::execute(*store, prepared, *discovery, place, nullptr, stop, &fault);
  auto judged = run::finish(*store, prepared.info.id, done, place);
  if (!fault.empty()) throw util::FatalError("fuzz run " + prepared.info.id + ": " + fault);
  if (completed != nullptr) *completed = done;
  return judged.cases;
}

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return out;
}

class Campaign {
 public:
  Campaign(std::string id, fs::path dir, Options o, const Where& w, const Say& say)
      : id_(std::move(id)), dir_(std::move(dir)), o_(std::move(o)), w_(w), say_(say) {}

  void load() {
    const json j = read_json(dir_ / "campaign.json");
    if (j.value("format", "") != "mudjack.fuzz-campaign/1") {
      throw util::FatalError((dir_ / "campaign.json").string() + ": not a fuzz campaign");
    }
    o_ = options_from_json(j.at("options"));
    next_graph_ = j.value("next_graph", int64_t{0});
    seconds_ = j.value("seconds", 0.0);
    batches_ = j.value("batches", json::array());
    for (const auto& f : j.value("findings", json::array()))
      findings_.push_back(finding_from_json(f));
    for (const auto& t : j.value("seen", json::array())) seen_.insert(t.get<std::string>());
    framework_of_ = j.value("frameworks", std::map<std::string, std::string>{});
    for (size_t i = 0; i < batches_.size(); ++i) {  // the coverage of the graphs written so far
      if (!fs::exists(batch_dir(i))) continue;
      for (const auto& e : fs::directory_iterator(batch_dir(i))) {
        try {
          if (e.path().extension() == ".json") coverage_.add(gen::read_file(e.path().string()));
        } catch (const gen::GraphError&) {
        }
      }
    }
  }

  void save() const {
    json j;
    j["format"] = "mudjack.fuzz-campaign/1";
    j["id"] = id_;
    j["options"] = to_json(o_);
    j["next_graph"] = next_graph_;
    j["seconds"] = seconds_;
    j["batches"] = batches_;
    j["findings"] = json::array();
    for (const auto& f : findings_) j["findings"].push_back(to_json(f));
    j["seen"] = seen_;
    j["frameworks"] = framework_of_;
    write_text(dir_ / "campaign.json", j.dump(1) + "\n");
  }

  // Runs batches until the deadline, the graph limit or an interrupt.
  bool go(double budget_s, int64_t max_graphs, const std::atomic<bool>& interrupted) {
    const auto t0 = Clock::now();
    const auto end = t0 + std::chrono::milliseconds(static_cast<int64_t>(budget_s * 1000));
    Deadline deadline(interrupted, end);
    const int64_t graph_limit = max_graphs > 0 ? next_graph_ + max_graphs : 0;
    gen::Generator generator(o_.gen);
    // an incomplete last batch first
    if (!batches_.empty() && batches_.back().value("state", "") != "complete") {
      finish_batch(batches_.size() - 1, deadline);
    }
    while (!deadline.stop() && (graph_limit == 0 || next_graph_ < graph_limit)) {
      const int64_t count =
          graph_limit == 0 ? o_.batch : std::min<int64_t>(o_.batch, graph_limit - next_graph_);
      new_batch(generator, count);
      finish_batch(batches_.size() - 1, deadline);
    }
    seconds_ += std::chrono::duration<double>(Clock::now() - t0).count();
    save();
    write_reports(dir_, summary(), findings_);
    return !interrupted;
  }

  size_t unique() const { return findings_.size(); }
  const Options& options() const { return o_; }

 private:
  fs::path batch_dir(size_t i) const {
    char name[32];
    std::snprintf(name, sizeof(name), "batch-%04zu", i);
    return dir_ / "graphs" / name;
  }

  void new_batch(gen::Generator& generator, int64_t count) {
    const size_t index = batches_.size();
    const fs::path dir = batch_dir(index);
    fs::create_directories(dir);
    std::set<std::string> hashes;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t seed = o_.seed * 1'000'003 + next_graph_ + i;
      gen::Graph g = generator.generate(seed);
      const std::string h = gen::hash(g);
      if (!hashes.insert(h).second) continue;
      write_text(dir / (h + ".json"), gen::to_json(g).dump(1) + "\n");
      coverage_.add(g);
    }
    next_graph_ += count;
    batches_.push_back(
        {{"index", index}, {"graphs", hashes.size()}, {"state", "new"}, {"run", ""}});
    save();
  }

  void finish_batch(size_t index, const Deadline& deadline) {
    auto& b = batches_[index];
    const fs::path dir = batch_dir(index);
    std::vector<model::CaseResult> cases;
    bool completed = false;
    auto store = store::Store::open(store::default_db_path(w_.results_dir));
    const std::string prior = b.value("run", "");
    if (!prior.empty()) {
      auto prepared = run::reopen(*store, prior);
      if (prepared.work.empty()) {
        completed = true;
      } else if (auto discovery =
                     discover_in_budget(prepared.options, prepared.cases, deadline.stop())) {
        run::resume(*store, prepared, *discovery, "running");
        const run::Place place{w_.results_dir, w_.intolerable};
        std::string fault;
        completed =
            run::execute(*store, prepared, *discovery, place, nullptr, deadline.stop(), &fault);
        run::finish(*store, prior, completed, place);
        if (!fault.empty()) throw util::FatalError("fuzz run " + prior + ": " + fault);
      }
      cases = store->results(prior);
    } else {
      const Listed l = list(o_, dir);
      for (const auto& [backend, c] : l.backend) framework_of_[backend] = c.framework;
      if (l.cases.empty()) {
        b["state"] = "complete";
        return;
      }
      store.reset();
      cases = run_cases(
          o_, dir, l.cases, o_.devices, w_.results_dir, w_.intolerable, deadline.stop(),
          [&](const std::string& id) {
            b["run"] = id;
            save();
          },
          &completed);
    }
    b["state"] = completed ? "complete" : "incomplete";
    // the batch's facts, recomputed from everything its run stored
    std::map<std::string, std::pair<std::vector<std::string>, size_t>> ops;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() != ".json") continue;
      try {
        const auto g = gen::read_file(e.path().string());
        ops[e.path().stem().string()] = {gen::ops_of(g), g.nodes.size()};
      } catch (const gen::GraphError&) {
      }
    }
    const BatchFacts facts = analyze(cases, o_.slow_ratio, ops);
    b["facts"] = facts_json(facts);
    size_t fresh = 0;
    for (const auto& f : facts.findings) {
      const std::string triple = f.graph + "|" + f.backend + "|" + f.device;
      if (!seen_.insert(triple).second) continue;
      if (add_finding(f, dir, deadline)) ++fresh;
      save();
    }
    save();
    write_reports(dir_, summary(), findings_);
    char line[256];
    std::snprintf(line, sizeof(line),
                  "batch %zu: %d graphs, %d cases, %zu new findings (%zu unique in all), %d "
                  "rejected by every backend%s",
                  index, facts.graphs, facts.cases, fresh, findings_.size(), facts.rejected_by_all,
                  completed ? "" : " (cut short; --resume continues it)");
    say_(line);
  }

  static json facts_json(const BatchFacts& f) {
    json acc = json::object();
    for (const auto& [b, a] : f.acceptance) acc[b] = {a.first, a.second};
    return {{"graphs", f.graphs},
            {"cases", f.cases},
            {"rejected_by_all", f.rejected_by_all},
            {"suite_errors", f.suite_errors},
            {"acceptance", acc},
            {"unavailable", f.unavailable},
            {"findings", f.findings.size()}};
  }

  // A duplicate of a known finding, or a new one (reduced and bundled).
  bool add_finding(Finding f, const fs::path& graphs_dir, const Deadline& deadline) {
    const auto subset = [](const std::vector<std::string>& small,
                           const std::vector<std::string>& big) {
      return std::all_of(small.begin(), small.end(), [&](const std::string& s) {
        return std::find(big.begin(), big.end(), s) != big.end();
      });
    };
    int same_key = 0;
    for (auto& e : findings_) {
      if (e.key() != f.key()) continue;
      ++same_key;
      const auto& core = e.reduced.empty() ? e.ops : e.reduced_ops;
      if (subset(core, f.ops)) {
        ++e.duplicates;
        return false;
      }
    }
    if (same_key >= o_.reduce_per_key) {  // enough of this kind reduced: the closest one
      for (auto& e : findings_) {
        if (e.key() == f.key()) {
          ++e.duplicates;
          return false;
        }
      }
    }
    const fs::path source = graphs_dir / (f.graph + ".json");
    gen::Graph g = gen::read_file(source.string());
    gen::Graph reduced = g;
    if (o_.reduce && !deadline.stop()) {
      gen::ReduceStats st;
      reduced = gen::reduce(g, still_shows(f, deadline), &st);
      f.reduced = gen::hash(reduced);
      f.reduced_nodes = reduced.nodes.size();
      f.reduced_ops = gen::ops_of(reduced);
      say_("  reduced " + f.symptom + " on " + f.backend + "/" + f.device + ": " +
           std::to_string(st.nodes_before) + " -> " + std::to_string(st.nodes_after) + " nodes (" +
           join(f.reduced_ops, ", ") + "), " + std::to_string(st.batches) + " runs");
      for (auto& e : findings_) {
        if (!e.reduced.empty() && e.signature() == f.signature()) {
          ++e.duplicates;
          return false;
        }
      }
    }
    bundle(f, g, reduced, deadline);
    findings_.push_back(std::move(f));
    return true;
  }

  gen::StillShows still_shows(const Finding& f, const Deadline& deadline) {
    auto step = std::make_shared<int>(0);
    const fs::path root =
        dir_ / "reduce" / sanitize(f.graph + "-" + f.backend + "-" + f.device + "-" + f.symptom);
    return [this, f, &deadline, step, root](const std::vector<gen::Graph>& cands) {
      std::vector<bool> out(cands.size(), false);
      if (deadline.stop()) return out;
      const fs::path dir = root / ("step-" + std::to_string((*step)++));
      fs::create_directories(dir);
      std::vector<std::string> hashes;
      for (const auto& c : cands) {
        hashes.push_back(gen::hash(c));
        write_text(dir / (hashes.back() + ".json"), gen::to_json(c).dump(1) + "\n");
      }
      Options o = o_;
      o.backends = {f.backend};
      const std::string eager_backend = eager_twin(f.backend);
      if (f.symptom == "slow" && !eager_backend.empty()) o.backends.push_back(eager_backend);
      try {
        const Listed l = list(o, dir);
        const auto results = run_cases(o, dir, l.cases, {f.device}, dir_ / "reduce", w_.intolerable,
                                       deadline.stop(), nullptr, nullptr);
        for (size_t i = 0; i < cands.size(); ++i) {
          const model::CaseResult* mine = nullptr;
          const model::CaseResult* eager = nullptr;
          for (const auto& r : results) {
            auto id = parse_case_id(r.info.id);
            if (!id || id->first != hashes[i] || r.device != f.device) continue;
            if (id->second == f.backend) mine = &r;
            if (id->second == eager_backend) eager = &r;
          }
          out[i] = mine != nullptr && shows(f, *mine, eager, o_.slow_ratio);
        }
      } catch (const util::FatalError& e) {
        say_(std::string("  reduction step failed: ") + e.what());
      }
      return out;
    };
  }

  // The eager backend of the same framework ("" when `backend` is eager).
  std::string eager_twin(const std::string& backend) const {
    const auto fw = framework_of_.find(backend);
    if (fw == framework_of_.end()) return "";
    for (const auto& [b, framework] : framework_of_) {
      if (framework == fw->second && b != backend && backend.rfind(b, 0) == 0) return b;
    }
    return "";
  }

  void bundle(Finding& f, const gen::Graph& original, const gen::Graph& reduced,
              const Deadline& deadline) {
    char name[32];
    std::snprintf(name, sizeof(name), "%03zu", findings_.size() + 1);
    const std::string rel = std::string("findings/") + name + "-" + f.symptom + "-" +
                            sanitize(f.backend) + "-" + sanitize(f.device);
    const fs::path dir = dir_ / rel;
    fs::create_directories(dir);
    f.bundle = rel;
    write_text(dir / "graph.json", gen::to_json(reduced).dump(1) + "\n");
    write_text(dir / "original.json", gen::to_json(original).dump(1) + "\n");
    const std::string framework =
        framework_of_.count(f.backend) != 0 ? framework_of_.at(f.backend) : "";
    write_script(f, dir, framework, !deadline.stop());
    json meta = to_json(f);
    meta["framework"] = framework;
    meta["seed"] = o_.seed;
    meta["slow_ratio"] = o_.slow_ratio;
    meta["campaign"] = id_;
    write_text(dir / "finding.json", meta.dump(1) + "\n");
  }

  // repro.py from the probe's script writer, then run on its own.
  // Run on its own only while the budget lasts (`run_it`), for at most 120 s.
  void write_script(Finding& f, const fs::path& dir, const std::string& framework, bool run_it) {
    if (framework.empty()) return;
    const auto python = envs::resolve(framework, o_.profile, o_.python);
    if (python.python.empty()) {
      f.standalone_output = "no script: " + python.missing_reason;
      return;
    }
    os::SpawnOptions so;
    so.argv = {python.python.string(),
               "-m",
               "mudjack_probe.fuzz",
               "script",
               (dir / "graph.json").string(),
               f.backend,
               f.device,
               std::to_string(o_.seed),
               "--symptom",
               f.symptom,
               "--slow-ratio",
               std::to_string(o_.slow_ratio)};
    if (f.bound_eps) {
      so.argv.push_back("--bound-eps");
      so.argv.push_back(std::to_string(*f.bound_eps));
    }
    so.env_set["PYTHONPATH"] = (envs::data_dir() / "probe").string();
    so.env_keep = supervisor::probe_may_inherit;
    std::string error;
    auto child = os::Child::spawn(so, &error);
    if (!child) {
      f.standalone_output = "no script: " + error;
      return;
    }
    std::string script;
    std::string line;
    while (child->read_line(line, std::chrono::seconds(60)) == os::Child::Read::kLine) {
      script += line + "\n";
    }
    const auto status = child->wait_or_kill(std::chrono::seconds(10));
    if (status.exit_code != 0 || script.empty()) {
      std::string tail = child->stderr_tail();
      while (!tail.empty() && tail.back() == '\n') tail.pop_back();
      f.standalone_output = "no script: the writer ended with " + status.describe() + ": " +
                            tail.substr(tail.rfind('\n') + 1).substr(0, 200);
      return;
    }
    write_text(dir / "repro.py", script);
    if (!run_it) {
      f.standalone_output = "not run on its own: the campaign's budget was spent";
      return;
    }
    run_script(f, dir, python.python);
  }

  // repro.py run on its own: its framework and NumPy only, no MudJack on the
  // path, for at most 120 s; what it measured and whether it reproduced.
  static void run_script(Finding& f, const fs::path& dir, const fs::path& python) {
    std::string error;
    std::string line;
    os::SpawnOptions run;
    run.argv = {python.string(), (dir / "repro.py").string()};
    run.env_unset = {"PYTHONPATH"};
    run.env_keep = supervisor::probe_may_inherit;
    run.cwd = dir;
    run.stderr_tail_bytes = 4096;
    auto script_run = os::Child::spawn(run, &error);
    if (!script_run) return;
    // what it measured (the per-output lines: "v3 (float32[4]): 9.1e+04 eps of
    // the float64 reference (bound 8.19e+03)") and its verdict line
    std::string measured;
    std::string last;
    const auto until = Clock::now() + std::chrono::seconds(120);
    while (Clock::now() < until &&
           script_run->read_line(line, std::chrono::seconds(120)) == os::Child::Read::kLine) {
      if (line.empty()) continue;
      last = line;
      if (line.find(" eps ") != std::string::npos || line.find("median") != std::string::npos) {
        const auto start = line.find_first_not_of(' ');
        measured += (measured.empty() ? "" : "; ") + line.substr(start);
      }
    }
    if (!measured.empty()) last = measured.substr(0, 400) + "; " + last;
    const auto st = script_run->wait_or_kill(std::chrono::seconds(10));
    // exit 1: the symptom reproduced; 0: it did not; anything else: the script broke
    if (st.exit_code == 1) {
      f.standalone = true;
    } else if (st.exit_code == 0) {
      f.standalone = false;
    }
    f.standalone_output = last.substr(0, 600);
  }

  json summary() const {
    json s;
    s["id"] = id_;
    s["options"] = to_json(o_);
    s["seconds"] = seconds_;
    s["graphs_generated"] = next_graph_;
    int graphs = 0;
    int cases = 0;
    int rejected = 0;
    int suite_errors = 0;
    std::map<std::string, std::pair<int, int>> acceptance;
    std::map<std::string, int> unavailable;
    std::vector<std::string> runs;
    for (const auto& b : batches_) {
      if (!b.value("run", "").empty()) runs.push_back(b["run"]);
      if (!b.contains("facts")) continue;
      const auto& f = b["facts"];
      graphs += f.value("graphs", 0);
      cases += f.value("cases", 0);
      rejected += f.value("rejected_by_all", 0);
      suite_errors += f.value("suite_errors", 0);
      const json batch_acceptance = f.value("acceptance", json::object());
      for (const auto& [k, v] : batch_acceptance.items()) {
        acceptance[k].first += v[0].get<int>();
        acceptance[k].second += v[1].get<int>();
      }
      const json batch_unavailable = f.value("unavailable", json::object());
      for (const auto& [k, v] : batch_unavailable.items()) {
        unavailable[k] += v.get<int>();
      }
    }
    s["graphs_run"] = graphs;
    s["cases"] = cases;
    s["rejected_by_all"] = rejected;
    s["suite_errors"] = suite_errors;
    json acc = json::object();
    for (const auto& [k, v] : acceptance) {
      acc[k] = {{"attempted", v.first},
                {"ran", v.second},
                {"fraction", v.first > 0 ? static_cast<double>(v.second) / v.first : 0.0}};
    }
    s["acceptance"] = acc;
    s["unavailable"] = unavailable;
    s["runs"] = runs;
    const gen::Coverage& cov = coverage_;
    json c = json::object();
    for (const auto& [op, n] : cov.nodes) {
      c[op] = {{"nodes", n},
               {"attr_values", cov.attrs.count(op) ? cov.attrs.at(op).size() : 0},
               {"rank_dtypes", cov.rank_dtype.count(op) ? cov.rank_dtype.at(op).size() : 0}};
    }
    s["coverage"] = c;
    s["ops_specified"] = gen::op_specs().size();
    return s;
  }

  std::string id_;
  fs::path dir_;
  Options o_;
  const Where& w_;
  const Say& say_;
  int64_t next_graph_ = 0;
  double seconds_ = 0;
  json batches_ = json::array();
  std::vector<Finding> findings_;
  std::set<std::string> seen_;  // graph|backend|device already turned into findings
  std::map<std::string, std::string> framework_of_;  // backend -> framework
  gen::Coverage coverage_;                           // of every graph the campaign generated
};

// A campaign.json is a file anyone who can write the results folder can
// edit, so what it says is never a program to run: the interpreters a resumed
// campaign uses are this invocation's (--python and mudjack.toml over the
// cached environments), and a stored --python map that differs is refused
// rather than followed or silently replaced (the batches would no longer be
// one campaign). A stored profile must be one this engine knows: it names a
// folder of environments.
void check_stored_interpreters(const Options& stored,
                               const std::map<std::string, std::string>& python,
                               const fs::path& file) {
  if (std::find(envs::kProfiles.begin(), envs::kProfiles.end(), stored.profile) ==
      envs::kProfiles.end()) {
    throw util::FatalError(file.string() + ": unknown profile '" + stored.profile +
                           "'; known: " + envs::profile_names());
  }
  if (stored.python == python) return;
  std::string asked;
  for (const auto& [framework, path] : stored.python) {
    asked += (asked.empty() ? "" : " ") + std::string("--python ") + framework + "=" + path;
  }
  throw util::FatalError(file.string() + " names interpreters (" +
                         (asked.empty() ? std::string("none") : asked) +
                         ") that differ from this invocation's; resume with the same --python "
                         "flags (or mudjack.toml [python]) as the campaign was started with");
}

std::string new_id() {
  std::string id = util::new_run_id();
  return "fz-" + id;
}

bool is_link(const fs::path& p) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(p, ec));
}

// A destination folder publish creates: never one reached through a link,
// which would put the evidence (and its overwrites) somewhere else.
void make_real_dir(const fs::path& dir) {
  if (is_link(dir)) {
    throw util::FatalError("will not publish through " + dir.string() +
                           ": it is a symbolic link; remove it or publish elsewhere");
  }
  std::error_code ec;
  fs::create_directory(dir, ec);
  if (!fs::is_directory(fs::symlink_status(dir, ec))) {
    throw util::FatalError("cannot create " + dir.string() + ": not a folder");
  }
}

// Copies the regular file `from` (absent: nothing) to `to`. The source is
// opened with O_NOFOLLOW, so a link there (to a secret beside the campaign)
// is skipped with a note; the destination is a new file renamed into place.
void publish_file(const fs::path& from, const fs::path& to, std::vector<std::string>& notes) {
  const int fd = ::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) notes.push_back(from.string() + " is a symbolic link: not published");
    return;
  }
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  std::string content;
  char buf[65536];
  ssize_t n = 0;
  while (regular && (n = ::read(fd, buf, sizeof buf)) > 0) {
    content.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (!regular) {
    notes.push_back(from.string() + " is not a regular file: not published");
    return;
  }
  if (n < 0) throw util::FatalError("cannot read " + from.string());
  report::write_file_atomically(to, content);
}

}  // namespace

nlohmann::json to_json(const Options& o) {
  std::vector<std::string> dtypes;
  for (auto d : o.gen.dtypes) dtypes.emplace_back(gen::to_string(d));
  return {{"backends", o.backends},
          {"devices", o.devices},
          {"seed", o.seed},
          {"nodes", o.gen.nodes},
          {"dtypes", dtypes},
          {"ops", o.gen.ops},
          {"solver", o.gen.solver},
          {"batch", o.batch},
          {"slow_ratio", o.slow_ratio},
          {"reduce", o.reduce},
          {"reduce_per_key", o.reduce_per_key},
          {"timeout_s", o.timeout_s},
          {"profile", o.profile},
          {"python", o.python},
          {"suite", {{"name", o.suite.name}, {"dir", o.suite.dir.string()}}},
          {"command", o.command}};
}

Options options_from_json(const nlohmann::json& j) {
  Options o;
  o.backends = j.value("backends", std::vector<std::string>{});
  o.devices = j.value("devices", std::vector<std::string>{});
  o.seed = j.value("seed", int64_t{0});
  o.gen.nodes = j.value("nodes", 10);
  o.gen.dtypes.clear();
  for (const auto& d : j.value("dtypes", std::vector<std::string>{"float32"})) {
    if (auto t = gen::dtype_from(d)) o.gen.dtypes.push_back(*t);
  }
  o.gen.ops = j.value("ops", std::vector<std::string>{});
  o.gen.solver = j.value("solver", "own");
  o.batch = j.value("batch", 40);
  o.slow_ratio = j.value("slow_ratio", 10.0);
  o.reduce = j.value("reduce", true);
  o.reduce_per_key = j.value("reduce_per_key", 4);
  o.timeout_s = j.value("timeout_s", 120.0);
  o.profile = j.value("profile", "current");
  o.python = j.value("python", std::map<std::string, std::string>{});
  if (j.contains("suite")) {
    o.suite.name = j["suite"].value("name", "fuzz");
    o.suite.dir = j["suite"].value("dir", "");
  }
  // The built-in suite is found again where this engine's data folder is when
  // its stored folder is gone (resumed on another machine, a moved checkout).
  if (o.suite.name == "fuzz" && (o.suite.dir.empty() || !fs::exists(o.suite.dir))) {
    o.suite = plan::resolve_suite("fuzz");
  }
  o.command = j.value("command", "");
  return o;
}

std::optional<std::string> invalid(const Options& o) {
  if (auto why = gen::invalid(o.gen)) return why;
  if (auto why = util::out_of_range("--batch", int64_t{o.batch}, kBatchRange)) return why;
  if (auto why = util::out_of_range("--slow-ratio", o.slow_ratio, kSlowRatioRange)) return why;
  if (auto why = util::out_of_range("--budget", o.budget_s, kBudgetRangeS)) return why;
  if (auto why = util::out_of_range("--graphs", o.max_graphs, kGraphsRange)) return why;
  if (auto why = util::out_of_range("--seed", o.seed, run::kSeedRange)) return why;
  if (auto why = util::out_of_range("--timeout-s", o.timeout_s, run::kTimeoutRangeS)) return why;
  return std::nullopt;
}

Outcome start(const Options& o, const Where& w, const std::atomic<bool>& interrupted,
              const Say& say) {
  if (auto why = invalid(o)) throw util::FatalError(*why);
  if (!o.backends.empty()) {  // unknown names fail before a campaign exists
    const fs::path sample = w.results_dir / "fuzz" / (".backends-" + util::new_run_id());
    gen::Generator g(o.gen);
    write_text(sample / (std::string(16, '0') + ".json"), gen::to_json(g.generate(o.seed)).dump());
    try {
      list(o, sample);
    } catch (...) {
      fs::remove_all(sample);
      throw;
    }
    fs::remove_all(sample);
  }
  Outcome out;
  out.id = new_id();
  out.dir = w.results_dir / "fuzz" / out.id;
  fs::create_directories(out.dir);
  Campaign c(out.id, out.dir, o, w, say);
  c.save();
  say("fuzz " + out.id + ": graphs of " + std::to_string(o.gen.nodes) + " nodes, seed " +
      std::to_string(o.seed) + "; folder " + out.dir.string());
  out.completed = c.go(o.budget_s, o.max_graphs, interrupted);
  out.findings = c.unique();
  return out;
}

Outcome resume(const std::string& id, double budget_s, int64_t max_graphs,
               const std::map<std::string, std::string>& python, const Where& w,
               const std::atomic<bool>& interrupted, const Say& say) {
  Outcome out;
  out.id = id;
  out.dir = w.results_dir / "fuzz" / id;
  if (!fs::exists(out.dir / "campaign.json")) {
    throw util::FatalError("unknown fuzz campaign '" + id + "': no " +
                           (out.dir / "campaign.json").string());
  }
  Campaign c(id, out.dir, Options{}, w, say);
  c.load();
  check_stored_interpreters(c.options(), python, out.dir / "campaign.json");
  say("fuzz " + id + ": resumed; folder " + out.dir.string());
  out.completed = c.go(budget_s, max_graphs, interrupted);
  out.findings = c.unique();
  return out;
}

std::vector<std::string> publish(const std::string& id, const Where& w, const fs::path& dest) {
  const fs::path dir = w.results_dir / "fuzz" / id;
  if (!fs::exists(dir / "campaign.json")) {
    throw util::FatalError("unknown fuzz campaign '" + id + "': no " +
                           (dir / "campaign.json").string());
  }
  const json campaign = read_json(dir / "campaign.json");
  auto store = store::Store::open_read_only(store::default_db_path(w.results_dir));
  for (const auto& b : campaign.value("batches", json::array())) {
    const std::string run = b.value("run", "");
    if (run.empty()) continue;
    const auto info = store->get_run(run);
    if (!info) throw util::FatalError("campaign " + id + ": run " + run + " is not in the store");
    if (auto why = run::unpublishable(*info)) {
      throw util::FatalError("campaign " + id + " cannot be published: run " + run + ": " + *why);
    }
  }
  std::vector<std::string> notes;
  const fs::path findings = dir / "findings";
  std::error_code ec;
  fs::create_directories(dest, ec);  // `dest` itself may be a link, as --out may
  const bool bundles = fs::is_directory(fs::symlink_status(findings, ec));
  if (is_link(findings)) {
    notes.push_back(findings.string() + " is a symbolic link: its bundles were not published");
  }
  if (bundles) make_real_dir(dest / "findings");  // refused before any file is written
  for (const char* name : {"findings.json", "findings.csv", "summary.md", "junit.xml",
                           "report.html", "campaign.json"}) {
    publish_file(dir / name, dest / name, notes);
  }
  if (!bundles) return notes;
  for (const auto& e : fs::directory_iterator(findings)) {
    if (!e.is_directory(ec) || e.is_symlink(ec)) {
      notes.push_back(e.path().string() + " is not a folder (a link?): not published");
      continue;
    }
    const fs::path to = dest / "findings" / e.path().filename();
    make_real_dir(to);
    for (const char* name : {"graph.json", "original.json", "finding.json", "repro.py"}) {
      publish_file(e.path() / name, to / name, notes);
    }
  }
  return notes;
}

Replay replay(const fs::path& bundle, const Where& w, const Options& base,
              const std::atomic<bool>& interrupted) {
  if (!fs::is_directory(bundle))
    throw util::FatalError(bundle.string() + ": no such bundle folder");
  const json meta = read_json(bundle / "finding.json");
  const Finding f = finding_from_json(meta);
  if (f.symptom.empty() || f.backend.empty() || f.device.empty()) {
    throw util::FatalError((bundle / "finding.json").string() + ": not a finding");
  }
  const gen::Graph g = gen::read_file((bundle / "graph.json").string());
  Options o = base;
  o.seed = meta.value("seed", base.seed);
  o.slow_ratio = meta.value("slow_ratio", base.slow_ratio);
  o.backends = {f.backend};
  const fs::path dir = w.results_dir / "fuzz" / ("replay-" + util::new_run_id());
  write_text(dir / (gen::hash(g) + ".json"), gen::to_json(g).dump(1) + "\n");
  Listed l = list(o, dir);
  std::string eager;
  if (f.symptom == "slow") {
    for (const auto& [b, c] : l.backend) {
      if (c.framework == l.backend.at(f.backend).framework && c.mode == "eager") eager = b;
    }
    if (!eager.empty()) {
      o.backends.push_back(eager);
      l = list(o, dir);
    }
  }
  Deadline never(interrupted, Clock::now() + std::chrono::hours(24 * 365));
  bool completed = false;
  const auto results = run_cases(o, dir, l.cases, {f.device}, w.results_dir, w.intolerable,
                                 never.stop(), nullptr, &completed);
  Replay r;
  const model::CaseResult* mine = nullptr;
  const model::CaseResult* twin = nullptr;
  for (const auto& c : results) {
    auto id = parse_case_id(c.info.id);
    if (!id || c.device != f.device) continue;
    if (id->second == f.backend) mine = &c;
    if (id->second == eager) twin = &c;
  }
  if (mine == nullptr) {
    r.what = "no outcome for " + f.backend + " on " + f.device;
    return r;
  }
  r.shows = shows(f, *mine, twin, o.slow_ratio);
  r.what = std::string(model::to_string(mine->outcome)) + " on " + f.device;
  const std::string why =
      !mine->numeric.message.empty() ? mine->numeric.message : mine->error.message;
  if (!why.empty()) r.what += ": " + why.substr(0, why.find('\n')).substr(0, 300);
  return r;
}

}  // namespace mudjack::fuzz
