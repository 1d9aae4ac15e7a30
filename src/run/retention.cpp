#include "run/retention.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <set>

#include "run/lease.hpp"
#include "util/error.hpp"

namespace mudjack::run {
namespace fs = std::filesystem;

namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// An open directory descriptor, closed when it goes.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// The names in the directory `dir_fd` (not "." and "..").
std::vector<std::string> names_in(int dir_fd) {
  std::vector<std::string> names;
  const int copy = ::dup(dir_fd);
  if (copy < 0) return names;
  DIR* d = ::fdopendir(copy);
  if (d == nullptr) {
    ::close(copy);
    return names;
  }
  ::rewinddir(d);
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  return names;
}

// Removes (unless dry_run) `name` in `dir_fd`, which is not a directory:
// a link is unlinked as itself. Counts a regular file that went.
void remove_entry(int dir_fd, const std::string& name, const struct stat& st, bool dry_run,
                  Pruned& pruned) {
  if (!dry_run && ::unlinkat(dir_fd, name.c_str(), 0) != 0) return;
  if (!S_ISREG(st.st_mode)) return;
  ++pruned.files;
  pruned.bytes += static_cast<int64_t>(st.st_size);
}

void remove_named_tree(int dir_fd, const std::string& name, bool dry_run, Pruned& pruned);

// Everything below the directory `dir_fd`, depth first; directories are
// entered by openat(O_NOFOLLOW), so no link is ever followed.
void clear_below(int dir_fd, bool dry_run, Pruned& pruned) {
  for (const auto& name : names_in(dir_fd)) remove_named_tree(dir_fd, name, dry_run, pruned);
}

// `name` in `dir_fd` and everything below it, never through a link.
void remove_named_tree(int dir_fd, const std::string& name, bool dry_run, Pruned& pruned) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
  if (!S_ISDIR(st.st_mode)) {
    remove_entry(dir_fd, name, st, dry_run, pruned);
    return;
  }
  Fd sub(::openat(dir_fd, name.c_str(), kDirFlags));
  if (!sub.ok()) return;
  clear_below(sub.get(), dry_run, pruned);
  if (!dry_run) ::unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR);
}

// The directory `path`'s parent opened as the system resolves it (the
// results folder may be a link), and `path`'s last name within it.
std::pair<int, std::string> parent_and_name(const fs::path& path) {
  const fs::path normal = path.lexically_normal();
  const fs::path name = normal.has_filename() ? normal.filename() : normal.parent_path().filename();
  fs::path parent =
      normal.has_filename() ? normal.parent_path() : normal.parent_path().parent_path();
  if (parent.empty()) parent = ".";
  return {::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC), name.string()};
}

// Every output file a result names: its own, its reference's, its strict
// run's, its second call's.
std::vector<std::string> output_paths(const model::CaseResult& r) {
  std::vector<std::string> paths;
  for (const auto& o : r.outputs) paths.push_back(o.path);
  for (const char* extra : {"reference", "strict", "again"}) {
    if (!r.extra.is_object() || !r.extra.contains(extra)) continue;
    const auto& outputs = r.extra[extra].value("outputs", nlohmann::json::array());
    for (const auto& o : outputs) {
      if (o.is_object() && o.contains("path") && o["path"].is_string()) {
        paths.push_back(o["path"].get<std::string>());
      }
    }
  }
  return paths;
}

// The regular file `relative` below the directory `base_fd`, each folder on
// the way opened without following a link; anything else is left.
void remove_file_below(int base_fd, const fs::path& relative, bool dry_run, Pruned& pruned) {
  Fd dir(::dup(base_fd));
  std::vector<std::string> parts;
  for (const auto& part : relative) parts.push_back(part.string());
  if (parts.empty() || !dir.ok()) return;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const int next = ::openat(dir.get(), parts[i].c_str(), kDirFlags);
    if (next < 0) return;
    dir.reset(next);
  }
  struct stat st {};
  if (::fstatat(dir.get(), parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
  if (S_ISREG(st.st_mode)) remove_entry(dir.get(), parts.back(), st, dry_run, pruned);
}

// Outputs of cases that passed on every device: the rest is what the
// oracle's findings and repro need.
Pruned prune_passing(int artifacts_fd, const fs::path& artifacts,
                     const std::vector<model::CaseResult>& results, bool dry_run) {
  Pruned pruned;
  std::set<std::string> failing;
  for (const auto& r : results) {
    if (model::props(r.outcome).failure || !model::props(r.outcome).judged) {
      failing.insert(r.info.id);
    }
  }
  std::set<fs::path> seen;  // a dry run must not count one file twice
  const fs::path root = artifacts.lexically_normal();
  for (const auto& r : results) {
    if (failing.contains(r.info.id)) continue;
    for (const auto& path : output_paths(r)) {
      // Only files of this run's own folder: a results.json read back may
      // name paths of another machine.
      const auto relative = fs::path(path).lexically_normal().lexically_relative(root);
      if (relative.empty() || *relative.begin() == ".." || relative.is_absolute()) continue;
      if (!seen.insert(relative).second) continue;
      remove_file_below(artifacts_fd, relative, dry_run, pruned);
    }
  }
  return pruned;
}

}  // namespace

std::optional<Keep> parse_keep(std::string_view name) {
  if (name == "failing") return Keep::kFailing;
  if (name == "all") return Keep::kAll;
  if (name == "none") return Keep::kNone;
  return std::nullopt;
}

std::string_view to_string(Keep keep) {
  switch (keep) {
    case Keep::kFailing:
      return "failing";
    case Keep::kAll:
      return "all";
    case Keep::kNone:
      return "none";
  }
  return "failing";
}

Pruned remove_tree(const fs::path& dir, bool dry_run) {
  Pruned pruned;
  auto [parent, name] = parent_and_name(dir);
  Fd parent_fd(parent);
  if (!parent_fd.ok() || name.empty() || name == "." || name == "..") return pruned;
  remove_named_tree(parent_fd.get(), name, dry_run, pruned);
  return pruned;
}

int64_t disk_bytes(const fs::path& dir) {
  return remove_tree(dir, true).bytes;
}

Pruned prune_outputs(const fs::path& run_dir, const std::vector<model::CaseResult>& results,
                     Keep keep, bool dry_run) {
  if (keep == Keep::kAll) return {};
  Pruned pruned;
  auto [parent, name] = parent_and_name(run_dir);
  Fd parent_fd(parent);
  if (!parent_fd.ok()) return pruned;
  Fd run_fd(::openat(parent_fd.get(), name.c_str(), kDirFlags));
  if (!run_fd.ok()) return pruned;
  // A link named artifacts was not made by MudJack: left, with what it names.
  Fd artifacts_fd(::openat(run_fd.get(), "artifacts", kDirFlags));
  if (!artifacts_fd.ok()) return pruned;
  if (keep == Keep::kNone) {
    clear_below(artifacts_fd.get(), dry_run, pruned);
    if (!dry_run) ::unlinkat(run_fd.get(), "artifacts", AT_REMOVEDIR);
    return pruned;
  }
  return prune_passing(artifacts_fd.get(), run_dir / "artifacts", results, dry_run);
}

// The rule for runs something still uses. A run is in use when
//  - an execution holds its live lease (run/lease.hpp): it is running now;
//  - or its stored state is "queued" or "running" and it has no lease at all:
//    a server stores an accepted run as "queued" and takes no lease until its
//    thread starts it (server/runs.cpp), and a command holds no lease between
//    storing its run and executing it, or between executing and finishing.
//    The store cannot tell such an owner alive from dead, so the run stays;
//    `mudjack run --resume` (or a server's resume) settles it.
// A queued or running run whose lease is stale was abandoned: its executor
// died (or stopped renewing for kLeaseTimeout), and prune may take it like
// any other. Checked once per run: a run that starts after the check is not
// seen (an execution that then finds its folder gone fails loudly).
std::optional<std::string> in_use(const store::Store& store, const model::RunInfo& r) {
  if (auto holder = lease_holder(store, r.id)) return "being executed now (live lease)";
  if (r.state != "queued" && r.state != "running") return std::nullopt;
  if (store.lease(r.id)) return std::nullopt;  // stale: abandoned
  return r.state == "queued" ? "queued: accepted by a server that has not started it"
                             : "running: its command has not taken its lease yet";
}

namespace {

// Seconds since the epoch of an ISO 8601 UTC time ("2026-11-26T22:22:51.427Z"); 0 if unreadable.
int64_t epoch_of(const std::string& iso) {
  std::tm tm{};
  if (::strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) return 0;
  return static_cast<int64_t>(::timegm(&tm));
}

// Whole runs to forget: beyond the newest `keep_last`, or older than the limit.
bool too_old(const PruneOptions& o, size_t index, const model::RunInfo& r) {
  if (o.keep_last && index >= static_cast<size_t>(*o.keep_last)) return true;
  if (!o.older_than_days) return false;
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const int64_t created = epoch_of(r.created_at);
  return created > 0 && static_cast<double>(now - created) > *o.older_than_days * 86400;
}

// A run id names one folder below runs/: never a path of its own.
bool plain_name(const std::string& id) {
  return !id.empty() && id != "." && id != ".." && id.find('/') == std::string::npos &&
         id.find('\0') == std::string::npos;
}

}  // namespace

std::vector<PruneEntry> prune_runs(store::Store& store, const fs::path& results_dir,
                                   const PruneOptions& o) {
  const fs::path runs_dir = results_dir / "runs";
  std::error_code ec;
  if (fs::is_symlink(runs_dir, ec)) {
    throw util::FatalError(runs_dir.string() +
                           " is a symbolic link: prune deletes only in folders MudJack made "
                           "(link the results folder itself instead)");
  }
  std::vector<PruneEntry> out;
  const auto runs = store.list_runs();  // newest first
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    if (!plain_name(r.id)) throw util::FatalError("run id '" + r.id + "' is not a folder name");
    const bool whole = too_old(o, i, r);
    const bool outputs = r.state == "complete" && o.keep != Keep::kAll;
    if (!whole && !outputs) continue;
    PruneEntry e{PruneEntry::What::kRun, r.id, r.created_at, {}, ""};
    if (auto why = in_use(store, r)) {
      e.what = PruneEntry::What::kKept;
      e.why = *why;
      out.push_back(std::move(e));
      continue;
    }
    const fs::path dir = runs_dir / r.id;
    if (whole) {
      if (!o.dry_run) store.delete_run(r.id);  // first: a half-removed folder is no run
      e.removed = remove_tree(dir, o.dry_run);
      out.push_back(std::move(e));
      continue;
    }
    e.what = PruneEntry::What::kOutputs;
    e.removed = prune_outputs(dir, store.results(r.id), o.keep, o.dry_run);
    if (e.removed.files > 0) out.push_back(std::move(e));
  }
  return out;
}

}  // namespace mudjack::run
