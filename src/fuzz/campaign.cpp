#include "fuzz/campaign.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "envs/envs.hpp"
#include "fuzz/bundle.hpp"
#include "fuzz/reduction.hpp"
#include "fuzz/report.hpp"
#include "fuzz/runs.hpp"
#include "fuzz/state.hpp"
#include "fuzz/suspect.hpp"
#include "gen/ops.hpp"
#include "run/options.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

namespace mudjack::fuzz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool subset(const std::vector<std::string>& small, const std::vector<std::string>& big) {
  return std::all_of(small.begin(), small.end(), [&](const std::string& s) {
    return std::find(big.begin(), big.end(), s) != big.end();
  });
}

// The ops and node count of every graph in a batch folder, by hash.
std::map<std::string, std::pair<std::vector<std::string>, size_t>> batch_ops(const fs::path& dir) {
  std::map<std::string, std::pair<std::vector<std::string>, size_t>> ops;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    try {
      const auto g = gen::read_file(e.path().string());
      ops[e.path().stem().string()] = {gen::ops_of(g), g.nodes.size()};
    } catch (const gen::GraphError&) {
    }
  }
  return ops;
}

// Batches of graphs run until the budget is spent: each batch's findings
// judged (suspects apart), reduced and bundled; the reports rewritten.
class Campaign {
 public:
  Campaign(CampaignState state, const Where& w, const Say& say)
      : s_(std::move(state)), w_(w), say_(say) {}

  CampaignState& state() { return s_; }

  // Runs batches until the deadline, the graph limit or an interrupt.
  bool go(double budget_s, int64_t max_graphs, const std::atomic<bool>& interrupted) {
    const auto t0 = Clock::now();
    const auto end = t0 + std::chrono::milliseconds(static_cast<int64_t>(budget_s * 1000));
    Deadline deadline(interrupted, end);
    const int64_t graph_limit = max_graphs > 0 ? s_.next_graph + max_graphs : 0;
    gen::Generator generator(s_.options.gen);
    // an incomplete last batch first
    if (!s_.batches.empty() && s_.batches.back().value("state", "") != "complete") {
      finish_batch(s_.batches.size() - 1, deadline);
    }
    while (!deadline.stop() && (graph_limit == 0 || s_.next_graph < graph_limit)) {
      const int64_t count = graph_limit == 0
                                ? s_.options.batch
                                : std::min<int64_t>(s_.options.batch, graph_limit - s_.next_graph);
      new_batch(generator, count);
      finish_batch(s_.batches.size() - 1, deadline);
    }
    s_.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    s_.save();
    write_reports(s_.dir, s_.summary(), s_.findings, s_.suspects);
    return !interrupted;
  }

 private:
  void new_batch(gen::Generator& generator, int64_t count) {
    const size_t index = s_.batches.size();
    const fs::path dir = s_.batch_dir(index);
    fs::create_directories(dir);
    std::set<std::string> hashes;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t seed = s_.options.seed * 1'000'003 + s_.next_graph + i;
      gen::Graph g = generator.generate(seed);
      const std::string h = gen::hash(g);
      if (!hashes.insert(h).second) continue;
      write_text(dir / (h + ".json"), gen::to_json(g).dump(1) + "\n");
      s_.coverage.add(g);
    }
    s_.next_graph += count;
    s_.batches.push_back(
        {{"index", index}, {"graphs", hashes.size()}, {"state", "new"}, {"run", ""}});
    s_.save();
  }

  // The batch's run (resumed when it was made before), its judged cases.
  std::vector<model::CaseResult> run_batch(size_t index, const Deadline& deadline,
                                           bool* completed) {
    auto& b = s_.batches[index];
    const std::string prior = b.value("run", "");
    if (!prior.empty()) return resume_run(prior, w_, deadline.stop(), completed);
    const Listed l = list(s_.options, s_.batch_dir(index));
    for (const auto& [backend, c] : l.backend) s_.framework_of[backend] = c.framework;
    if (l.cases.empty()) {
      *completed = true;
      return {};
    }
    return run_cases(
        s_.options, s_.batch_dir(index), l.cases, s_.options.devices, w_.results_dir,
        w_.intolerable, deadline.stop(),
        [&](const std::string& id) {
          b["run"] = id;
          s_.save();
        },
        completed);
  }

  void finish_batch(size_t index, const Deadline& deadline) {
    const fs::path dir = s_.batch_dir(index);
    bool completed = false;
    const auto cases = run_batch(index, deadline, &completed);
    s_.batches[index]["state"] = completed ? "complete" : "incomplete";
    // Nothing listed (every graph refused by every backend): nothing to say.
    // A batch cut short before its run started still says so below.
    if (completed && cases.empty() && s_.batches[index].value("run", "").empty()) return;
    // the batch's facts, recomputed from everything its run stored
    const BatchFacts facts = analyze(cases, s_.options.slow_ratio, batch_ops(dir));
    s_.batches[index]["facts"] = facts_json(facts);
    const auto suspect = suspects_of(facts, cases, dir);
    size_t fresh = 0;
    size_t suspects = 0;
    for (auto f : facts.findings) {
      if (!s_.seen.insert(f.graph + "|" + f.backend + "|" + f.device).second) continue;
      const auto why = suspect.find(f.graph + "|" + f.backend + "|" + f.device);
      if (f.symptom == Symptom::kMismatch && why != suspect.end()) {
        f.symptom = Symptom::kSuspect;
        f.suspect = why->second;
        if (add_suspect(std::move(f))) ++suspects;
      } else if (add_finding(std::move(f), dir, deadline)) {
        ++fresh;
      }
      s_.save();
    }
    s_.save();
    write_reports(s_.dir, s_.summary(), s_.findings, s_.suspects);
    say_batch(index, facts, fresh, suspects, completed);
  }

  // Why each mismatch of the batch is suspect ("graph|backend|device").
  std::map<std::string, std::string> suspects_of(const BatchFacts& facts,
                                                 const std::vector<model::CaseResult>& cases,
                                                 const fs::path& dir) {
    const bool any = std::any_of(facts.findings.begin(), facts.findings.end(),
                                 [](const Finding& f) { return f.symptom == Symptom::kMismatch; });
    if (!any) return {};
    std::string error;
    auto out =
        suspect_cases(cases, dir, s_.options.seed, s_.options.profile, s_.options.python, &error);
    if (!error.empty()) say_("  suspects not judged (mismatches kept as findings): " + error);
    return out;
  }

  void say_batch(size_t index, const BatchFacts& facts, size_t fresh, size_t suspects,
                 bool completed) {
    char line[320];
    std::snprintf(line, sizeof(line),
                  "batch %zu: %d graphs, %d cases, %zu new findings (%zu unique in all), %zu "
                  "new suspects (%zu in all, not findings), %d rejected by every backend%s",
                  index, facts.graphs, facts.cases, fresh, s_.findings.size(), suspects,
                  s_.suspects.size(), facts.rejected_by_all,
                  completed ? "" : " (cut short; --resume continues it)");
    say_(line);
  }

  // A suspect of a signature already listed counts as its duplicate.
  bool add_suspect(Finding f) {
    for (auto& e : s_.suspects) {
      if (e.signature() == f.signature()) {
        ++e.duplicates;
        return false;
      }
    }
    s_.suspects.push_back(std::move(f));
    return true;
  }

  // A known finding this one duplicates (same key, its ops containing the
  // known one's reduced ops; or the key reduced often enough), or nullptr.
  Finding* duplicate_of(const Finding& f) {
    int same_key = 0;
    Finding* first = nullptr;
    for (auto& e : s_.findings) {
      if (e.key() != f.key()) continue;
      ++same_key;
      if (first == nullptr) first = &e;
      if (subset(e.reduced.empty() ? e.ops : e.reduced_ops, f.ops)) return &e;
    }
    return same_key >= s_.options.reduce_per_key ? first : nullptr;
  }

  // A duplicate of a known finding, or a new one (reduced and bundled).
  bool add_finding(Finding f, const fs::path& graphs_dir, const Deadline& deadline) {
    if (Finding* known = duplicate_of(f)) {
      ++known->duplicates;
      return false;
    }
    gen::Graph g = gen::read_file((graphs_dir / (f.graph + ".json")).string());
    gen::Graph reduced = g;
    if (s_.options.reduce && !deadline.stop()) {
      reduced = reduce_finding(s_, w_, say_, f, g, deadline);
      for (auto& e : s_.findings) {
        if (!e.reduced.empty() && e.signature() == f.signature()) {
          ++e.duplicates;
          return false;
        }
      }
    }
    write_bundle(s_, s_.findings.size() + 1, f, g, reduced, !deadline.stop());
    s_.findings.push_back(std::move(f));
    return true;
  }

  CampaignState s_;
  const Where& w_;
  const Say& say_;
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

// The stored suite folder, like the interpreters, is never followed: the
// campaign runs this invocation's (`suite`), and a stored one that is another
// is refused. A built-in campaign's stored folder may be gone (resumed on
// another machine, a moved checkout).
void check_stored_suite(const plan::SuiteRef& stored, const plan::SuiteRef& suite,
                        const fs::path& file) {
  std::error_code ec;
  const bool builtin = stored.name == "fuzz" && suite.name == "fuzz";
  if (builtin && (stored.dir.empty() || !fs::exists(stored.dir, ec))) return;
  const auto a = fs::weakly_canonical(stored.dir, ec);
  const auto b = fs::weakly_canonical(suite.dir, ec);
  if (stored.name == suite.name && a == b) return;
  throw util::FatalError(file.string() + " names the backends folder " + stored.dir.string() +
                         " (" + stored.name + "), not this invocation's " + suite.dir.string() +
                         "; resume with the --suite the campaign was started with");
}

std::string new_id() {
  std::string id = util::new_run_id();
  return "fz-" + id;
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
          {"memory_limit_bytes", o.memory_limit_bytes},
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
  o.gen.nodes = j.value("nodes", o.gen.nodes);
  o.gen.dtypes.clear();
  for (const auto& d : j.value("dtypes", std::vector<std::string>{"float32"})) {
    if (auto t = gen::dtype_from(d)) o.gen.dtypes.push_back(*t);
  }
  o.gen.ops = j.value("ops", std::vector<std::string>{});
  o.gen.solver = j.value("solver", o.gen.solver);
  o.batch = j.value("batch", o.batch);
  o.slow_ratio = j.value("slow_ratio", o.slow_ratio);
  o.reduce = j.value("reduce", o.reduce);
  o.reduce_per_key = j.value("reduce_per_key", o.reduce_per_key);
  o.timeout_s = j.value("timeout_s", o.timeout_s);
  o.memory_limit_bytes = j.value("memory_limit_bytes", int64_t{0});
  o.profile = j.value("profile", o.profile);
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
  CampaignState state;
  state.id = out.id;
  state.dir = out.dir;
  state.options = o;
  Campaign c(std::move(state), w, say);
  c.state().save();
  say("fuzz " + out.id + ": graphs of " + std::to_string(o.gen.nodes) + " nodes, seed " +
      std::to_string(o.seed) + "; folder " + out.dir.string());
  out.completed = c.go(o.budget_s, o.max_graphs, interrupted);
  out.findings = c.state().findings.size();
  out.suspects = c.state().suspects.size();
  return out;
}

Outcome resume(const std::string& id, double budget_s, int64_t max_graphs,
               const std::map<std::string, std::string>& python, const plan::SuiteRef& suite,
               const Where& w, const std::atomic<bool>& interrupted, const Say& say) {
  Outcome out;
  out.id = id;
  out.dir = w.results_dir / "fuzz" / id;
  if (!fs::exists(out.dir / "campaign.json")) {
    throw util::FatalError("unknown fuzz campaign '" + id + "': no " +
                           (out.dir / "campaign.json").string());
  }
  CampaignState state;
  state.id = id;
  state.dir = out.dir;
  state.load();
  check_stored_interpreters(state.options, python, out.dir / "campaign.json");
  check_stored_suite(state.options.suite, suite, out.dir / "campaign.json");
  state.options.suite = suite;
  Campaign c(std::move(state), w, say);
  say("fuzz " + id + ": resumed; folder " + out.dir.string());
  out.completed = c.go(budget_s, max_graphs, interrupted);
  out.findings = c.state().findings.size();
  out.suspects = c.state().suspects.size();
  return out;
}

Replay replay(const fs::path& bundle, const Where& w, const Options& base,
              const std::atomic<bool>& interrupted) {
  if (!fs::is_directory(bundle))
    throw util::FatalError(bundle.string() + ": no such bundle folder");
  const json meta = read_json(bundle / "finding.json");
  const Finding f = finding_from_json(meta);
  if (f.symptom == Symptom::kNone || f.backend.empty() || f.device.empty()) {
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
  if (f.symptom == Symptom::kSlow) {
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
