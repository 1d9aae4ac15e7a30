// mudjack cache: what MudJack keeps on disk, and pruning it. `prune`
// drops saved outputs runs no longer need (--keep-outputs), or whole old
// runs (--keep-last, --older-than-days); a run something still uses (a live
// execution, a server's queue: run::in_use) is never touched, and nothing is
// deleted through a link (run/retention.hpp). `builds` lists the build cache (what the models suite
// exported and compiled, envs::build_cache_dir()) and `clean-builds` empties
// it, or only builds unused for some days, or the least recently used down to
// a size (--keep-gb).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>

#include <fnmatch.h>

#include <fstream>
#include <optional>
#include <thread>

#include "cli/commands.hpp"
#include "cli/numbers.hpp"
#include "envs/envs.hpp"
#include "run/lease.hpp"
#include "run/options.hpp"
#include "run/retention.hpp"
#include "supervisor/probe_session.hpp"
#include "supervisor/supervisor.hpp"
#include "util/error.hpp"

namespace mudjack::cli {
namespace {
namespace fs = std::filesystem;

// A count of runs, and an age in days (about 2,700 years at most: the
// seconds it makes stay far inside a time_t).
constexpr util::IntRange kCountRange{0, 1'000'000'000};
constexpr util::Range kDaysRange{0, 1e6, true};

struct PruneArgs {
  Common common;
  std::string keep_outputs = "failing";
  std::optional<int> keep_last;
  std::optional<double> older_than_days;
  bool dry_run = false;
};

// Prune's listing, the same words for a dry run and the real one but the
// verb: a dry run lists exactly what the real run removes.
void print_entry(const run::PruneEntry& e, bool dry_run) {
  const char* verb = dry_run ? "would remove" : "removed";
  switch (e.what) {
    case run::PruneEntry::What::kRun:
      std::printf("%s run %s (%s, %lld files, %s)\n", verb, e.run_id.c_str(), e.created_at.c_str(),
                  static_cast<long long>(e.removed.files), size_text(e.removed.bytes).c_str());
      return;
    case run::PruneEntry::What::kOutputs:
      std::printf("%s %lld output files of run %s (%s)\n", verb,
                  static_cast<long long>(e.removed.files), e.run_id.c_str(),
                  size_text(e.removed.bytes).c_str());
      return;
    case run::PruneEntry::What::kKept:
      std::printf("kept run %s: %s\n", e.run_id.c_str(), e.why.c_str());
      return;
  }
}

int prune(const PruneArgs& a) {
  const auto keep = run::parse_keep(a.keep_outputs);
  if (!keep) {
    throw util::FatalError("unknown --keep-outputs '" + a.keep_outputs +
                           "' (known: " + std::string(run::kKeepNames) + ")");
  }
  auto s = settings(a.common);
  open_existing_store(s.results_dir);  // a missing database is an error, never a new one
  auto store = open_store(s.results_dir);
  const auto entries =
      run::prune_runs(*store, s.results_dir, {*keep, a.keep_last, a.older_than_days, a.dry_run});
  int64_t freed = 0;
  for (const auto& e : entries) {
    print_entry(e, a.dry_run);
    freed += e.removed.bytes;
  }
  std::printf("%s %s in %s\n", a.dry_run ? "would free" : "freed", size_text(freed).c_str(),
              s.results_dir.c_str());
  return 0;
}

struct BuildArgs {
  Common common;
  std::optional<double> unused_days;  // clean-builds: only builds unused this long
  std::string model = "*";            // clean-builds: only this model (a glob)
  std::optional<double> keep_gb;      // clean-builds: least recently used first, down to this
  bool dry_run = false;
};

// One build of the cache: its folder's build.json (written by the probe,
// mudjack_probe/models.py), or a compiler's own cache folder (no build.json).
struct Build {
  fs::path dir;
  nlohmann::json info;  // null for a compiler cache folder
  int64_t bytes = 0;
};

// The cache's entries MudJack made, the only ones `clean-builds` may delete
// (MUDJACK_BUILD_CACHE may be mis-set to a folder of other things):
//  - a build: a real folder (not a link) holding a build.json, a regular
//    file, whose JSON object's "key" is the folder's name (the probe names
//    each build folder by its key);
//  - a compiler's cache: a real folder named as the probe names them
//    (compiler_caches(): torchinductor, triton, jax), and only in a cache
//    MudJack's probe marked as its own (kMarker) or that holds one of its
//    builds, so that a `jax` checkout in a mis-set folder is never taken.
// Anything else (dot names included: a build the probe is still writing) is
// not MudJack's and is left; `builds` only counts it.
constexpr const char* kMarker = ".mudjack-build-cache";
constexpr std::array<std::string_view, 3> kCompilerCaches = {"torchinductor", "triton", "jax"};

struct Cache {
  std::vector<Build> builds;
  size_t unknown = 0;  // entries that are not MudJack's
};

nlohmann::json build_info(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(dir / "build.json", ec))) return nullptr;
  std::ifstream in(dir / "build.json");
  auto info = nlohmann::json::parse(in, nullptr, false);
  if (!info.is_object() || info.value("key", "") != dir.filename().string()) return nullptr;
  return info;
}

Cache builds() {
  Cache out;
  const fs::path root = envs::build_cache_dir();
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return out;
  std::vector<fs::path> compilers;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == kMarker) continue;
    std::error_code st_ec;
    if (name.starts_with(".") || !fs::is_directory(entry.symlink_status(st_ec))) {
      ++out.unknown;
      continue;
    }
    auto info = build_info(entry.path());
    if (!info.is_null()) {
      out.builds.push_back({entry.path(), std::move(info), run::disk_bytes(entry.path())});
    } else if (std::find(kCompilerCaches.begin(), kCompilerCaches.end(), name) !=
               kCompilerCaches.end()) {
      compilers.push_back(entry.path());
    } else {
      ++out.unknown;
    }
  }
  const bool ours =
      fs::is_regular_file(fs::symlink_status(root / kMarker, ec)) || !out.builds.empty();
  for (const auto& dir : compilers) {
    if (ours) {
      out.builds.push_back({dir, nullptr, run::disk_bytes(dir)});
    } else {
      ++out.unknown;
    }
  }
  std::sort(out.builds.begin(), out.builds.end(),
            [](const Build& a, const Build& b) { return a.dir < b.dir; });
  return out;
}

std::string age_text(double epoch_s) {
  if (epoch_s <= 0) return "";
  const auto now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const double days = (now - epoch_s) / 86400;
  char buf[32];
  std::snprintf(buf, sizeof buf, days < 1 ? "%.1f h ago" : "%.1f d ago",
                days < 1 ? days * 24 : days);
  return buf;
}

int list_builds(const BuildArgs& a) {
  const auto cache = builds();
  const auto& all = cache.builds;
  if (a.common.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& b : all) {
      out.push_back({{"dir", b.dir.string()}, {"bytes", b.bytes}, {"build", b.info}});
    }
    std::printf("%s\n", out.dump(1).c_str());
    return 0;
  }
  int64_t total = 0;
  for (const auto& b : all) {
    total += b.bytes;
    if (b.info.is_null()) {
      std::printf("%-22s %-9s compiler cache (%s)\n", b.dir.filename().c_str(),
                  size_text(b.bytes).c_str(), b.dir.filename().c_str());
      continue;
    }
    std::printf("%-22s %-9s %s %s %s %s, built in %.1f s, used %d times, last %s\n",
                b.dir.filename().c_str(), size_text(b.bytes).c_str(),
                b.info.value("model", "?").c_str(), b.info.value("stage", "?").c_str(),
                b.info.value("dtype", "?").c_str(), b.info.value("shape", "?").c_str(),
                b.info.value("build_s", 0.0), b.info.value("uses", 0),
                age_text(b.info.value("last_used", 0.0)).c_str());
  }
  std::printf("%zu entries, %s in %s\n", all.size(), size_text(total).c_str(),
              envs::build_cache_dir().c_str());
  if (cache.unknown > 0) {
    std::printf("%zu other entries there are not MudJack's builds: never removed\n", cache.unknown);
  }
  return 0;
}

// When a build was last used: its build.json's last_used, else (a
// compiler's cache) the folder's modification time, in seconds since 1970.
double last_used(const Build& b) {
  if (!b.info.is_null()) return b.info.value("last_used", 0.0);
  std::error_code ec;
  const auto t = fs::last_write_time(b.dir, ec);
  if (ec) return 0;
  return std::chrono::duration<double>(std::chrono::file_clock::to_sys(t).time_since_epoch())
      .count();
}

int clean_builds(const BuildArgs& a) {
  const auto now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  int64_t freed = 0;
  const bool filtered = a.model != "*" || a.unused_days;
  auto all = builds().builds;
  int64_t total = 0;
  for (const auto& b : all) total += b.bytes;
  if (a.keep_gb) {  // least recently used first, until what is left fits
    std::stable_sort(all.begin(), all.end(),
                     [](const Build& x, const Build& y) { return last_used(x) < last_used(y); });
  }
  const auto keep_bytes = static_cast<int64_t>(a.keep_gb.value_or(0) * 1e9);
  for (const auto& b : all) {
    if (a.keep_gb && total - freed <= keep_bytes) break;
    if (b.info.is_null()) {
      if (filtered) continue;  // a compiler's cache has no model or age of its own
    } else {
      if (::fnmatch(a.model.c_str(), b.info.value("model", "").c_str(), 0) != 0) continue;
      if (a.unused_days && now - b.info.value("last_used", now) < *a.unused_days * 86400) continue;
    }
    // Removed without following a link below it, as prune removes a run.
    const auto removed = run::remove_tree(b.dir, a.dry_run);
    std::printf("%s %s (%s)\n", a.dry_run ? "would remove" : "removed", b.dir.c_str(),
                size_text(removed.bytes).c_str());
    freed += removed.bytes;
    std::error_code ec;
    if (!a.dry_run && fs::exists(fs::symlink_status(b.dir, ec))) {
      throw util::FatalError("cannot remove " + b.dir.string() + ": something in it stayed");
    }
  }
  std::printf("%s %s\n", a.dry_run ? "would free" : "freed", size_text(freed).c_str());
  return 0;
}

struct PrebuildArgs {
  Common common;
  Selection sel;
  int jobs = 0;  // 0: half the cores
  int64_t seed = 0;
  std::vector<std::string> devices;  // where compiled cases compile; default cpu
  double timeout_s = 600;            // one build's deadline
};

// One pass of the torch probe on one device (protocol `build`, driven by
// supervisor::ProbeSession): `ids` built in `jobs` processes, each line of
// what they did printed. False when interrupted (SIGINT, SIGTERM): the probe
// and its workers are killed, and what they finished stays in the cache.
bool prebuild_on(const std::string& device, const std::vector<std::string>& ids, int jobs,
                 size_t threads, const PrebuildArgs& a, const Settings& s,
                 const std::filesystem::path& python, int& built, int& failed) {
  auto cmd = supervisor::tool_command(python);
  cmd.framework = "torch";
  cmd.device = device;
  for (const auto& ref : suites_of(a.sel)) cmd.suite_dirs.push_back(ref.dir);
  cmd.params = params_of(a.sel, s);
  std::string error;
  auto probe = supervisor::ProbeSession::start(cmd, {}, interrupted(), &error);
  if (!probe) {
    if (interrupted().load()) return false;
    throw util::FatalError("cannot start the torch probe on " + device + ": " +
                           error.substr(0, error.find('\n')));
  }
  if (!probe->hello().unavailable.empty()) {
    throw util::FatalError("cannot use device " + device + ": " + probe->hello().unavailable);
  }
  const auto print = [&](const protocol::Built& b) {
    (b.status == "built" ? built : failed) += 1;
    std::printf("%-8s %6.1f s  %-7s %s %s\n", b.status.c_str(), b.seconds, device.c_str(),
                b.case_id.c_str(), b.message.c_str());
    std::fflush(stdout);
  };
  const protocol::BuildRequest request{ids, a.seed, jobs, threads, a.timeout_s};
  const bool done = probe->build(request, print, &error);
  probe->stop();
  if (!done && error.empty()) return false;  // interrupted
  if (!done) throw util::FatalError("cache build on " + device + ": " + error);
  return true;
}

// Fills the build cache for the selected torch cases: `onnxruntime` cases'
// exports once (on the CPU), and `compiled` cases compiled and called once
// on each device, so that the compilers' caches are warm there.
int prebuild(const PrebuildArgs& a) {
  auto s = settings(a.common);
  std::vector<std::string> exports, compiles;
  for (const auto& c : selected_cases(a.sel, s)) {
    if (c.framework != "torch") continue;
    if (c.mode == "onnxruntime") exports.push_back(c.id);
    if (c.mode == "compiled") compiles.push_back(c.id);
  }
  if (exports.empty() && compiles.empty()) {
    throw util::FatalError(
        "nothing to build: the selection has no torch onnxruntime or compiled case");
  }
  const auto python = envs::resolve("torch", s.config.profile, s.python);
  if (python.python.empty()) throw util::FatalError(python.missing_reason, 3);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int jobs = a.jobs > 0 ? a.jobs : std::max(1, cores / 2);
  const std::vector<std::string> devices =
      a.devices.empty() ? std::vector<std::string>{"cpu"} : a.devices;
  // A CPU compile is cached for the thread count it was built with: the one
  // the run's cpu lane will have beside these accelerator lanes.
  const auto accelerators = static_cast<size_t>(
      std::count_if(devices.begin(), devices.end(), [](const auto& d) { return d != "cpu"; }));
  const size_t threads = supervisor::cpu_lane_threads(accelerators);
  int built = 0, failed = 0;
  for (size_t i = 0; i < devices.size(); ++i) {
    std::vector<std::string> ids = compiles;
    if (i == 0) ids.insert(ids.begin(), exports.begin(), exports.end());  // exports: once
    if (ids.empty()) continue;
    std::fprintf(stderr,
                 "building %zu exports and %zu compiled cases on %s in %d processes into %s\n",
                 i == 0 ? exports.size() : 0, compiles.size(), devices[i].c_str(), jobs,
                 envs::build_cache_dir().c_str());
    if (!prebuild_on(devices[i], ids, jobs, devices[i] == "cpu" ? threads : 0, a, s, python.python,
                     built, failed)) {
      std::fprintf(stderr, "mudjack: interrupted; %d built, %d failed, kept in the cache\n", built,
                   failed);
      return 130;
    }
  }
  std::printf("%d built or reused, %d failed (their runs report why)\n", built, failed);
  return 0;
}

}  // namespace

Command cache_command() {
  return {"cache", "What MudJack keeps on disk: prune saved outputs and old runs",
          [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<PruneArgs>();
            c->require_subcommand(1);
            auto* p = c->add_subcommand(
                "prune", "Drop saved outputs complete runs no longer need, or whole old runs");
            add_common(p, a->common);
            p->add_option("--keep-outputs", a->keep_outputs,
                          "Outputs of complete runs to keep: failing (default: what the oracle's "
                          "findings and repro need), all, none");
            add_number(p, "--keep-last", a->keep_last, kCountRange,
                       "Forget every run but the newest N");
            add_number(p, "--older-than-days", a->older_than_days, kDaysRange,
                       "Forget runs created more than D days ago");
            p->add_flag("--dry-run", a->dry_run, "Say what would go; remove nothing");
            auto b = std::make_shared<BuildArgs>();
            auto* l = c->add_subcommand("builds",
                                        "List the build cache: ONNX exports and compiler caches "
                                        "of the models suite");
            l->add_flag("--json", b->common.json, "One JSON array");
            auto* k = c->add_subcommand(
                "clean-builds", "Empty the build cache, or only builds unused for some days");
            add_number(k, "--unused-days", b->unused_days, kDaysRange,
                       "Only builds last used more than D days ago");
            k->add_option("--model", b->model, "Only this model's builds (a glob)");
            add_number(k, "--keep-gb", b->keep_gb, util::Range{0, 1e9, true},
                       "Remove the least recently used builds until at most G GB are left");
            k->add_flag("--dry-run", b->dry_run, "Say what would go; remove nothing");
            auto pb = std::make_shared<PrebuildArgs>();
            auto* m = c->add_subcommand(
                "build",
                "Fill the build cache before a run: the selected models' ONNX exports, and "
                "their compiled cases compiled once on each --device, in parallel processes");
            add_common(m, pb->common);
            add_selection(m, pb->sel);
            add_number(m, "--jobs", pb->jobs, util::IntRange{1, 4096},
                       "Processes (default: half the cores)");
            add_number(m, "--timeout-s", pb->timeout_s, run::kTimeoutRangeS,
                       "Give up one build after this long; the run then compiles or exports it "
                       "itself (default 600)");
            m->add_option("--device", pb->devices,
                          "Where compiled cases compile (cpu, cuda:0, ...; repeatable or comma "
                          "list; default cpu); exports are made once, on the CPU")
                ->delimiter(',');
            add_number(m, "--seed", pb->seed, run::kSeedRange,
                       "The run's seed: the weights are baked in (default 0)");
            return [a, b, l, k, pb, m] {
              if (l->parsed()) return list_builds(*b);
              if (k->parsed()) return clean_builds(*b);
              if (m->parsed()) return prebuild(*pb);
              return prune(*a);
            };
          }};
}

}  // namespace mudjack::cli
