#pragma once
// The results database: one SQLite file per results folder
// (`<results folder>/mudjack.db`), in WAL mode, every outcome committed as it
// lands (and every timing round, hold()) so a killed run loses at most the
// case in flight (docs/design.md: store, Rounds).
//
// Thread safety: a Store owns one connection guarded by an internal mutex;
// every public method may be called from any thread (the supervisor records
// from one thread per device lane). Several processes may open the same file;
// SQLite's locking plus busy_timeout serialises their writes.
//
// Errors: bad input (an unwritable folder, a file that is not a MudJack
// database, a schema this program cannot read, an unknown run id) and SQLite
// failures (disk full, I/O error) throw util::FatalError with a one-line
// message naming the database file. Absence is a value: get_run() and
// result() return nullopt.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "store/sqlite.hpp"

namespace mudjack::store {

// The file name of the database inside a results folder.
inline constexpr std::string_view kDatabaseFileName = "mudjack.db";

// `<results_dir>/mudjack.db`.
std::filesystem::path default_db_path(const std::filesystem::path& results_dir);

// One schema step: the SQL statements that bring a database from the
// previous version to `version` ("MAJOR.MINOR"). Steps run in list order, each
// in its own transaction together with the update of meta.schema_version.
struct Migration {
  std::string version;
  std::vector<std::string> sql;
};

// The migrations this program ships, oldest first; the last one's version is
// model::kSchemaVersion. To add 1.1, append {"1.1", {"ALTER TABLE ..."}} here
// (in store_schema.cpp) and bump model::kSchemaVersion.
const std::vector<Migration>& migrations();

// A recorded change of one (case, device)'s outcome, e.g. pass -> mismatch
// once the numeric oracle has compared outputs with the baseline.
struct OutcomeChange {
  std::string run_id;
  std::string case_id;
  std::string device;
  model::Outcome from = model::Outcome::kPass;
  model::Outcome to = model::Outcome::kPass;
  std::string reason;
  std::string at;  // ISO 8601 UTC, stamped by the store
};

using CaseDevice = std::pair<std::string /*case_id*/, std::string /*device*/>;

// Who executes a run (schema 1.2): one row per run while an execution holds
// it. The store only keeps rows and swaps them atomically; what makes a
// lease stale (its process gone, its heartbeat old) is run/lease.hpp's call.
struct Lease {
  std::string run_id;
  std::string host;               // gethostname() of the owner
  int64_t pid = 0;                // the owner's process id on `host`
  std::string process_start;      // tells a pid's process from a later one with the same pid
  std::string acquired_at;        // ISO 8601 UTC
  std::string heartbeat_at;       // ISO 8601 UTC, for people
  int64_t heartbeat_unix_ms = 0;  // for the staleness test
};

// A result whose timing rounds are under way (schema 1.5): the case's
// result so far (its first round's outcome, outputs and checks; every
// round's samples) and how many rounds it has.
struct HeldResult {
  model::CaseResult result;
  int rounds = 0;
};

// A run row that could not be read (list_runs() keeps going without it).
struct BadRow {
  std::string run_id;
  std::string problem;  // one line
};

// How far a run got, counted without reading its results.
struct RunCounts {
  size_t planned = 0;
  size_t results = 0;
};

class Store {
 public:
  // Opens (creating if needed) the database at db_path, its parent folder
  // included, and brings its schema up to date. Throws util::FatalError when
  // the folder cannot be created, the file is not a (sound) MudJack database,
  // or its schema MAJOR is newer than this program's. An existing file is
  // checked read-only first: one that is refused is left exactly as it was.
  static std::unique_ptr<Store> open(const std::filesystem::path& db_path);

  // As open(), with a caller-supplied migration list instead of migrations().
  // A testing hook (and the shape of the mechanism): the list must start with
  // migrations()'s first step and be ordered by version.
  static std::unique_ptr<Store> open(const std::filesystem::path& db_path,
                                     const std::vector<Migration>& steps);

  // For commands that only read (runs, report, compare, repro, merge's
  // sources): opens an existing database without writing anything to it, its
  // folder or its journal mode, also in a read-only folder (where SQLite
  // cannot make the WAL's -shm file, it reads the file as immutable). An
  // older schema is migrated in a private in-memory copy, never in the file.
  // Every write method throws FatalError. Same refusals as open().
  static std::unique_ptr<Store> open_read_only(const std::filesystem::path& db_path);

  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::filesystem::path& path() const { return db_.path(); }
  // meta.schema_version as stored, e.g. "1.0".
  std::string schema_version() const;
  // Whether path() is still the file this Store opened. SQLite keeps writing
  // to a file that was deleted or replaced (a results folder removed during
  // a run) and reports no error: writers check this before they trust their
  // commits. False when the path is gone or now names another file.
  bool still_at_path() const;

  // --- runs ---------------------------------------------------------------
  // Inserts a new run; FatalError if the id already exists.
  void create_run(const model::RunInfo& run);
  // FatalError if the run does not exist (also for set_environment).
  void set_run_state(const std::string& run_id, const std::string& state,
                     const std::string& finished_at);
  void set_environment(const std::string& run_id, const nlohmann::json& environment);
  std::optional<model::RunInfo> get_run(const std::string& run_id) const;
  // Newest first (by created_at, then insertion order). A row that cannot be
  // read (its options or environment not JSON) is left out and, when `bad`
  // is given, reported there: one damaged run never hides the others.
  std::vector<model::RunInfo> list_runs(std::vector<BadRow>* bad = nullptr) const;
  // Planned pairs and stored results of a run (0, 0 for an unknown run).
  RunCounts counts(const std::string& run_id) const;

  // --- leases (run/lease.hpp) ---------------------------------------------
  // In one write transaction: stores `mine` when `mine.run_id` has no lease
  // or `stale(holder)` is true, and returns nullopt; otherwise returns the
  // holder, unchanged. `stale` runs under the store's locks: keep it quick.
  std::optional<Lease> acquire_lease(const Lease& mine,
                                     const std::function<bool(const Lease&)>& stale);
  // Moves the heartbeat of `mine` to its heartbeat fields; false when the
  // run's lease is no longer this owner's (taken over or released).
  bool renew_lease(const Lease& mine);
  // Drops the lease if it is still `mine`'s.
  void release_lease(const Lease& mine);
  std::optional<Lease> lease(const std::string& run_id) const;
  // Forgets a run: its row, plan, cases, results, held rounds, changes and lease. Throws
  // StoreError for an unknown run. Its folder is the caller's to remove.
  void delete_run(const std::string& run_id);

  // --- plan ---------------------------------------------------------------
  // Stores the cases' metadata (replacing earlier rows of the same ids) and
  // appends the (case, device) pairs to the run's plan in the given order,
  // all in one transaction. Pairs already planned keep their place.
  void add_plan(const std::string& run_id, const std::vector<model::CaseInfo>& cases,
                const std::vector<CaseDevice>& pairs);
  // The planned pairs in plan order.
  std::vector<CaseDevice> plan(const std::string& run_id) const;
  // The run's case metadata, ordered by case id.
  std::vector<model::CaseInfo> cases(const std::string& run_id) const;

  // --- results ------------------------------------------------------------
  // Inserts or replaces the result of (run_id, info.id, device) in its own
  // committed transaction. If the case's metadata is not stored yet, r.info
  // is stored as it (so results() never loses it).
  void record(const model::CaseResult& r);
  // Rounds: a case timed in rounds (stats/timing.hpp) is held, not stored,
  // until its last round; hold() commits what it has after each round, so a
  // killed run keeps every round that landed, and --resume takes only the
  // missing ones. record() of the same pair drops the held row in the same
  // transaction: a pair is held or stored, never both.
  // Inserts or replaces the held result of (run_id, r.info.id, r.device)
  // with `rounds` rounds taken, in its own committed transaction.
  void hold(const model::CaseResult& r, int rounds);
  // The run's held results that have no stored result, in plan order.
  std::vector<HeldResult> held(const std::string& run_id) const;
  // Appends one entry to the outcome change log (the store stamps `at`). It
  // does not touch the result itself: record() the updated result too.
  void record_change(const std::string& run_id, const std::string& case_id,
                     const std::string& device, model::Outcome from, model::Outcome to,
                     const std::string& reason);
  // The change log in the order it was written.
  std::vector<OutcomeChange> changes(const std::string& run_id) const;
  // Every result of the run with its CaseInfo joined in, in plan order;
  // results of unplanned pairs follow, by case id and device.
  std::vector<model::CaseResult> results(const std::string& run_id) const;
  std::optional<model::CaseResult> result(const std::string& run_id, const std::string& case_id,
                                          const std::string& device) const;
  // Planned pairs that have no result yet, in plan order (what --resume
  // runs; a held pair is one of them, and runs only its missing rounds).
  std::vector<CaseDevice> remaining(const std::string& run_id) const;

 private:
  explicit Store(Connection db);
  void migrate(const std::vector<Migration>& steps);
  void remember_file(const std::filesystem::path& file);  // for still_at_path()
  void require_run(const std::string& run_id) const;      // caller holds mu_

  Connection db_;  // used only under mu_ (sqlite.hpp: nothing there locks)
  // The file path() named at open (st_dev, st_ino), for still_at_path();
  // for a read-only store whose data was copied to memory, the source file.
  std::filesystem::path file_;
  uint64_t device_ = 0;
  uint64_t inode_ = 0;
  mutable std::mutex mu_;
};

}  // namespace mudjack::store
