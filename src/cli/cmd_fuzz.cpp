// mudjack fuzz: generated graphs run on every backend and device, findings
// reduced and bundled (src/fuzz/campaign.hpp, docs/fuzz.md); --resume
// continues a campaign, --replay reruns one finding's bundle, --rejudge
// judges a stored campaign again (suspects apart) without rerunning it.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/numbers.hpp"
#include "fuzz/campaign.hpp"
#include "run/options.hpp"
#include "util/error.hpp"

namespace mudjack::cli {
namespace {

namespace fs = std::filesystem;

struct FuzzArgs {
  Common common;
  std::vector<std::string> backends;
  std::vector<std::string> devices;
  double budget_s = 600;
  int64_t graphs = 0;
  int64_t seed = 0;
  int nodes = 10;
  std::vector<std::string> dtypes = {"float32"};
  std::vector<std::string> ops;
  std::string solver = "own";
  int batch = 40;
  double slow_ratio = 10;
  bool no_reduce = false;
  double timeout_s = 120;
  std::optional<double> memory_limit_mb;  // over mudjack.toml's run.memory_limit_mb
  std::optional<std::string> resume;
  std::optional<std::string> replay;
  std::optional<std::string> suite;    // a folder of fuzz backends (tests: a planted bug)
  std::optional<std::string> publish;  // campaign id
  std::string to;
  std::optional<std::string> rejudge;  // a campaign's folder
};

fuzz::Options options_of(const FuzzArgs& a, const Settings& s) {
  fuzz::Options o;
  o.backends = split_commas(a.backends);
  o.devices = split_commas(a.devices);
  o.budget_s = a.budget_s;
  o.max_graphs = a.graphs;
  o.seed = a.seed;
  o.gen.nodes = a.nodes;
  o.gen.dtypes.clear();
  for (const auto& d : split_commas(a.dtypes)) {
    auto t = gen::dtype_from(d);
    if (!t || *t == gen::DType::kBool) {
      throw util::FatalError("--dtypes: '" + d +
                             "' is not one of float16, float32, float64, int32");
    }
    o.gen.dtypes.push_back(*t);
  }
  o.gen.ops = split_commas(a.ops);
  o.gen.solver = a.solver;
  o.batch = a.batch;
  o.slow_ratio = a.slow_ratio;
  o.reduce = !a.no_reduce;
  o.timeout_s = a.timeout_s;
  o.memory_limit_bytes = memory_limit_bytes_of(s, a.memory_limit_mb);
  o.profile = s.config.profile;
  o.python = s.python;
  o.suite = a.suite ? plan::suite_from_dir(*a.suite) : plan::resolve_suite("fuzz");
  o.command = invocation();
  if (auto why = fuzz::invalid(o)) throw util::FatalError(*why);
  return o;
}

// --rejudge DIR: findings before and after, every suspect listed; exit 1
// while findings remain (suspects never count).
int rejudge_main(const std::string& dir, const Settings& s) {
  const auto r = fuzz::rejudge(dir, s.config.profile, s.python);
  std::printf("rejudged %s: %zu findings before, %zu after; %zu suspects (not findings)\n",
              dir.c_str(), r.findings_before, r.findings_after, r.suspects.size());
  for (const auto& f : r.suspects) {
    std::printf(
        "  suspect %s on %s/%s (%s): %s\n", f.bundle.empty() ? f.graph.c_str() : f.bundle.c_str(),
        f.backend.c_str(), f.device.c_str(),
        fuzz::join(f.reduced.empty() ? f.ops : f.reduced_ops, ", ").c_str(), f.suspect.c_str());
  }
  return r.findings_after > 0 ? 1 : 0;
}

int fuzz_main(const FuzzArgs& a) {
  auto s = settings(a.common);
  const fuzz::Where where{s.results_dir, intolerable_path(a.common)};
  fs::create_directories(s.results_dir);
  const fuzz::Say say = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  if (a.publish) {
    if (a.to.empty()) throw util::FatalError("--publish needs --to DIR");
    for (const auto& note : fuzz::publish(*a.publish, where, a.to)) {
      std::fprintf(stderr, "mudjack: note: %s\n", note.c_str());
    }
    std::printf("published campaign %s to %s\n", a.publish->c_str(), a.to.c_str());
    return 0;
  }
  if (a.rejudge) return rejudge_main(*a.rejudge, s);
  if (a.replay) {
    auto o = options_of(a, s);
    const auto r = fuzz::replay(*a.replay, where, o, interrupted());
    std::printf("%s: %s\n", r.shows ? "reproduces" : "does not reproduce", r.what.c_str());
    return r.shows ? 1 : 0;
  }
  fuzz::Outcome out;
  if (a.resume) {
    if (a.resume->empty()) throw util::FatalError("--resume needs a campaign id");
    const auto suite = a.suite ? plan::suite_from_dir(*a.suite) : plan::resolve_suite("fuzz");
    out = fuzz::resume(*a.resume, a.budget_s, a.graphs, s.python, suite, where, interrupted(), say);
  } else {
    out = fuzz::start(options_of(a, s), where, interrupted(), say);
  }
  std::printf("fuzz %s: %zu unique findings, %zu suspects (not findings); reports in %s\n",
              out.id.c_str(), out.findings, out.suspects, out.dir.c_str());
  if (!out.completed) {
    std::fprintf(stderr, "mudjack: interrupted. Continue with: mudjack fuzz --resume %s --out %s\n",
                 out.id.c_str(), s.results_dir.c_str());
    return 130;
  }
  return out.findings > 0 ? 1 : 0;
}

}  // namespace

Command fuzz_command() {
  return {
      "fuzz",
      "Generate random valid graphs, run them on every backend and device, reduce and bundle "
      "what disagrees",
      [](CLI::App* c) -> std::function<int()> {
        auto a = std::make_shared<FuzzArgs>();
        add_common(c, a->common);
        add_intolerable(c, a->common);
        c->add_option("--backends", a->backends,
                      "Only these backends (comma list: torch, torch-compile, jax, jax-jit, "
                      "tensorflow, tensorflow-xla, onnxruntime, numpy)")
            ->delimiter(',');
        c->add_option("--devices", a->devices, "Only these devices (comma list)")->delimiter(',');
        add_duration(c, "--budget", a->budget_s, fuzz::kBudgetRangeS,
                     "Wall time of this invocation: 90s, 10m, 1h (default 10m)");
        add_number(c, "--graphs", a->graphs, fuzz::kGraphsRange,
                   "Stop after this many graphs (0: the budget only)");
        add_number(c, "--seed", a->seed, run::kSeedRange,
                   "Seed of the generator and of the inputs");
        add_number(c, "--nodes", a->nodes, gen::kNodesRange, "Nodes per graph");
        c->add_option("--dtypes", a->dtypes, "Graph dtypes (float16, float32, float64, int32)")
            ->delimiter(',');
        c->add_option("--ops", a->ops, "Only these ops (comma list; default: all 51)")
            ->delimiter(',');
        c->add_option("--solver", a->solver, "Attribute solver: own or z3");
        add_number(c, "--batch", a->batch, fuzz::kBatchRange, "Graphs per run");
        add_number(c, "--slow-ratio", a->slow_ratio, fuzz::kSlowRatioRange,
                   "Compiled / eager median beyond which a compiled backend is slow");
        c->add_flag("--no-reduce", a->no_reduce, "Keep findings at their generated size");
        add_number(c, "--memory-limit-mb", a->memory_limit_mb, run::kMemoryLimitRangeMb,
                   "Resident memory limit per probe and the processes it starts, listing "
                   "included (default: run.memory_limit_mb in mudjack.toml, else 3/4 of RAM)");
        add_number(c, "--timeout-s", a->timeout_s, run::kTimeoutRangeS,
                   "Deadline per case, seconds");
        c->add_option("--resume", a->resume, "Continue campaign ID for --budget more");
        c->add_option("--replay", a->replay, "Rerun one finding: its bundle folder");
        c->add_option("--publish", a->publish,
                      "Copy campaign ID's reports and bundles to --to DIR (refused for a "
                      "campaign run from a dirty tree)");
        c->add_option("--to", a->to, "Where --publish writes");
        c->add_option("--rejudge", a->rejudge,
                      "Judge a stored campaign's folder again (suspects apart), without "
                      "rerunning a backend");
        c->add_option("--suite", a->suite,
                      "A folder of fuzz backends instead of the built-in suite (tests)");
        return [a] { return fuzz_main(*a); };
      }};
}

}  // namespace mudjack::cli
