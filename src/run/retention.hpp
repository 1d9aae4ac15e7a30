#pragma once
// Retention of a run's saved outputs (the .npy files under
// <run>/artifacts/): the oracle reads them while the run executes, repro
// reads the baseline's when it writes a script. A paper run saves gigabytes;
// once the run is complete, `keep` says what stays:
//   failing (default)  every output (each device, references included) of a
//                      case that did not pass on some device: what the
//                      oracle's findings and `repro` need
//   all                everything
//   none               nothing (the artifacts folder is removed)
// An incomplete run keeps everything: a resumed run's oracle compares with
// outputs already saved.
//
// Deletes act only on what MudJack made, and never through a symbolic link:
// a run folder is results/runs/<id> of a run the store records; below it,
// every folder is opened without following links (O_NOFOLLOW), so a link
// planted in a run folder (an `artifacts` that points elsewhere) is at most
// removed itself, never what it points to. The results folder itself may be
// a link (to a bigger disk). A dry run walks exactly as the real one does and
// only leaves out the unlink calls: it reports the same files and bytes.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"
#include "store/store.hpp"

namespace mudjack::run {

enum class Keep { kFailing, kAll, kNone };

inline constexpr std::string_view kKeepNames = "failing, all, none";
std::optional<Keep> parse_keep(std::string_view name);
std::string_view to_string(Keep keep);

// Regular files removed (or, in a dry run, that would be) and their bytes.
// A symbolic link removed as itself counts as neither.
struct Pruned {
  int64_t files = 0;
  int64_t bytes = 0;
  bool operator==(const Pruned&) const = default;
};

// Removes the outputs `keep` does not keep, from `results` (one run's) and
// the run's artifacts folder; with `dry_run`, removes nothing and returns
// what it would remove. Only regular files below <run_dir>/artifacts, reached
// without following a link; an `artifacts` that is a link is left alone.
// Files that cannot be removed are left, never an error.
Pruned prune_outputs(const std::filesystem::path& run_dir,
                     const std::vector<model::CaseResult>& results, Keep keep,
                     bool dry_run = false);

// Removes the folder `dir` and everything below it without following any
// link (a link is removed as itself; `dir` being a link, only the link
// goes); with `dry_run`, counts what that would remove.
Pruned remove_tree(const std::filesystem::path& dir, bool dry_run);

// Bytes of the regular files under `dir` (0 when absent), counted as
// remove_tree would: no link followed, `dir` itself included.
int64_t disk_bytes(const std::filesystem::path& dir);

// `mudjack cache prune`: whole runs beyond the newest `keep_last` or older
// than `older_than_days` are forgotten (store rows and folder); other
// complete runs lose the outputs `keep` does not keep.
struct PruneOptions {
  Keep keep = Keep::kFailing;
  std::optional<int> keep_last;
  std::optional<double> older_than_days;
  bool dry_run = false;
};

// One line of prune's listing: a run forgotten, a run's outputs removed, or
// a run left alone because something still uses it (`why`).
struct PruneEntry {
  enum class What { kRun, kOutputs, kKept };
  What what = What::kRun;
  std::string run_id;
  std::string created_at;
  Pruned removed;
  std::string why;  // kKept only
  bool operator==(const PruneEntry&) const = default;
};

// Why prune must leave stored run `r` alone, or nullopt when it may go.
std::optional<std::string> in_use(const store::Store& store, const model::RunInfo& r);

// Prunes the runs of `store`, whose folders are under `results_dir`/runs;
// with `dry_run` changes nothing and lists exactly what the real call would
// remove. Runs in use (in_use) are listed as kept and untouched. FatalError
// when `results_dir`/runs is a symbolic link (its runs are not MudJack's to
// delete) or a run id is not a plain file name.
std::vector<PruneEntry> prune_runs(store::Store& store, const std::filesystem::path& results_dir,
                                   const PruneOptions& options);

}  // namespace mudjack::run
