// mudjack cache: what MudJack keeps on disk, and pruning it. `prune`
// drops saved outputs runs no longer need (--keep-outputs), or whole old
// runs (--keep-last, --older-than-days); a run a live execution holds is
// never touched.
#include <chrono>
#include <cstdio>
#include <ctime>

#include "cli/commands.hpp"
#include "run/lease.hpp"
#include "run/retention.hpp"
#include "util/error.hpp"

namespace mudjack::cli {
namespace {
namespace fs = std::filesystem;

struct PruneArgs {
  Common common;
  std::string keep_outputs = "failing";
  std::optional<int> keep_last;
  std::optional<double> older_than_days;
  bool dry_run = false;
};

// Seconds since the epoch of an ISO 8601 UTC time ("2026-11-26T22:22:51.427Z"); 0 if unreadable.
int64_t epoch_of(const std::string& iso) {
  std::tm tm{};
  if (::strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) return 0;
  return static_cast<int64_t>(::timegm(&tm));
}

// Whole runs to forget: beyond the newest `keep_last`, or older than the limit.
bool too_old(const PruneArgs& a, size_t index, const model::RunInfo& r) {
  if (a.keep_last && index >= static_cast<size_t>(*a.keep_last)) return true;
  if (!a.older_than_days) return false;
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const int64_t created = epoch_of(r.created_at);
  return created > 0 && static_cast<double>(now - created) > *a.older_than_days * 86400;
}

int prune(const PruneArgs& a) {
  const auto keep = run::parse_keep(a.keep_outputs);
  if (!keep) {
    throw util::FatalError("unknown --keep-outputs '" + a.keep_outputs +
                           "' (known: " + std::string(run::kKeepNames) + ")");
  }
  if (a.keep_last && *a.keep_last < 0) throw util::FatalError("--keep-last must be 0 or more");
  if (a.older_than_days && !(*a.older_than_days >= 0)) {
    throw util::FatalError("--older-than-days must be 0 or more");
  }
  auto s = settings(a.common);
  open_existing_store(s.results_dir);  // a missing database is an error, never a new one
  auto store = open_store(s.results_dir);
  const auto runs = store->list_runs();  // newest first
  int64_t freed = 0;
  const char* verb = a.dry_run ? "would remove" : "removed";
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    if (run::lease_holder(*store, r.id)) continue;  // running now
    const fs::path dir = s.results_dir / "runs" / r.id;
    if (too_old(a, i, r)) {
      const auto bytes = run::disk_bytes(dir);
      std::printf("%s run %s (%s, %s)\n", verb, r.id.c_str(), r.created_at.c_str(),
                  size_text(bytes).c_str());
      freed += bytes;
      if (a.dry_run) continue;
      store->delete_run(r.id);
      std::error_code ec;
      fs::remove_all(dir, ec);
      continue;
    }
    if (r.state != "complete" || *keep == run::Keep::kAll) continue;
    if (a.dry_run) continue;
    const auto pruned = run::prune_outputs(dir, store->results(r.id), *keep);
    if (pruned.bytes > 0) {
      std::printf("%s %lld output files of run %s (%s)\n", verb,
                  static_cast<long long>(pruned.files), r.id.c_str(),
                  size_text(pruned.bytes).c_str());
    }
    freed += pruned.bytes;
  }
  std::printf("%s %s in %s\n", a.dry_run ? "would free about" : "freed", size_text(freed).c_str(),
              s.results_dir.c_str());
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
            p->add_option("--keep-last", a->keep_last, "Forget every run but the newest N");
            p->add_option("--older-than-days", a->older_than_days,
                          "Forget runs created more than D days ago");
            p->add_flag("--dry-run", a->dry_run, "Say what would go; remove nothing");
            return [a] { return prune(*a); };
          }};
}

}  // namespace mudjack::cli
