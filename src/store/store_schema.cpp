// The schema, its migrations and opening a database (src/store/store.hpp):
// a file is checked read-only before it is trusted, then migrated.

#include "store/store.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "store/internal.hpp"
#include "store/sqlite.hpp"
#include "util/error.hpp"

namespace mudjack::store {
namespace {

using detail::read_version;
using util::FatalError;

// The first schema (1.0). Strings are NOT NULL with '' for "absent"; optional
// numbers are NULL when absent. Stats columns are all NULL when a result has
// no samples (n IS NULL marks that).
const std::vector<std::string> kSchema_1_0 = {
    R"sql(CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
))sql",
    R"sql(CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  suite TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at TEXT NOT NULL DEFAULT '',
  baseline TEXT NOT NULL,
  options_json TEXT NOT NULL DEFAULT '{}',
  environment_json TEXT NOT NULL DEFAULT '{}'
))sql",
    R"sql(CREATE TABLE cases (
  run_id TEXT NOT NULL,
  case_id TEXT NOT NULL,
  framework TEXT NOT NULL,
  function TEXT NOT NULL,
  variant TEXT NOT NULL,
  dtype TEXT NOT NULL,
  shape TEXT NOT NULL,
  mode TEXT NOT NULL,
  compiler TEXT NOT NULL,
  params_json TEXT NOT NULL,
  requires_json TEXT NOT NULL,
  dims_json TEXT NOT NULL,
  note TEXT NOT NULL,
  successor TEXT NOT NULL,
  rtol REAL,
  atol REAL,
  tags_json TEXT NOT NULL,
  PRIMARY KEY (run_id, case_id)
))sql",
    R"sql(CREATE TABLE planned (
  run_id TEXT NOT NULL,
  case_id TEXT NOT NULL,
  device TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (run_id, case_id, device)
))sql",
    "CREATE INDEX planned_by_seq ON planned (run_id, seq)",
    R"sql(CREATE TABLE results (
  run_id TEXT NOT NULL,
  case_id TEXT NOT NULL,
  device TEXT NOT NULL,
  outcome TEXT NOT NULL,
  error_kind TEXT NOT NULL,
  error_message TEXT NOT NULL,
  error_signal INTEGER,
  error_exit_code INTEGER,
  error_stderr_tail TEXT NOT NULL,
  error_traceback TEXT NOT NULL,
  cold_ns INTEGER,
  samples_json TEXT NOT NULL,
  calls_per_sample INTEGER NOT NULL,
  median_ns REAL,
  p10_ns REAL,
  p90_ns REAL,
  iqr_ns REAL,
  mean_ns REAL,
  stddev_ns REAL,
  cv REAL,
  min_ns REAL,
  n INTEGER,
  peak_device_bytes INTEGER,
  peak_host_bytes INTEGER,
  max_abs_err REAL,
  max_rel_err REAL,
  compared_with TEXT NOT NULL,
  numeric_message TEXT NOT NULL,
  outputs_json TEXT NOT NULL,
  extra_json TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  wall_s REAL NOT NULL,
  PRIMARY KEY (run_id, case_id, device)
))sql",
    R"sql(CREATE TABLE outcome_changes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  case_id TEXT NOT NULL,
  device TEXT NOT NULL,
  from_outcome TEXT NOT NULL,
  to_outcome TEXT NOT NULL,
  reason TEXT NOT NULL,
  at TEXT NOT NULL
))sql",
    "CREATE INDEX outcome_changes_by_run ON outcome_changes (run_id, id)",
};

// 1.1: what a case declares and measures besides latency (model/workload.hpp):
// the work one timed call does, and named metrics. Older rows read as no work
// and no metrics.
const std::vector<std::string> kSchema_1_1 = {
    "ALTER TABLE results ADD COLUMN work_json TEXT NOT NULL DEFAULT 'null'",
    "ALTER TABLE results ADD COLUMN metrics_json TEXT NOT NULL DEFAULT '{}'",
};

// 1.2: who executes a run (Lease in store.hpp): one row per run while an
// execution holds it, so a second executor is refused. Older databases have
// no leases: every run in them is free.
const std::vector<std::string> kSchema_1_2 = {
    R"sql(CREATE TABLE leases (
  run_id TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  process_start TEXT NOT NULL,
  acquired_at TEXT NOT NULL,
  heartbeat_at TEXT NOT NULL,
  heartbeat_unix_ms INTEGER NOT NULL
))sql",
};

// 1.3: the accuracy oracle. Each case's oracle metadata (declared reduction
// size, dtype-grid excuses, generated-for-the-grid) and each result's
// accuracy judgement (model::Numeric's reference, errors, bound, cause).
const std::vector<std::string> kSchema_1_3 = {
    "ALTER TABLE cases ADD COLUMN oracle_json TEXT NOT NULL DEFAULT '{}'",
    "ALTER TABLE results ADD COLUMN accuracy_json TEXT NOT NULL DEFAULT '{}'",
};

// 1.4: each result's timing (model::Timing: class, rounds, drift, what
// disturbed it).
const std::vector<std::string> kSchema_1_4 = {
    "ALTER TABLE results ADD COLUMN timing_json TEXT NOT NULL DEFAULT 'null'",
};

// 1.5: results whose timing rounds are under way (Store::hold), one row per
// pair with the columns of `results` and how many rounds it has, so a killed
// run keeps every round that landed. A column later added to `results` must
// be added here too (hold() writes every column of both).
const std::vector<std::string> kSchema_1_5 = {
    "CREATE TABLE held AS SELECT *, 0 AS rounds FROM results WHERE 0",
    "CREATE UNIQUE INDEX held_by_pair ON held (run_id, case_id, device)",
};

std::pair<int, int> must_parse_version(std::string_view v) {
  auto parsed = model::parse_schema_version(v);
  if (!parsed) {
    throw FatalError("migration list has a bad version '" + std::string(v) + "'");
  }
  return *parsed;
}

}  // namespace

std::string detail::read_version(const Connection& db) {
  Statement has_meta(db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'");
  has_meta.row();
  if (has_meta.col_int64(0) == 0) {
    Statement any(db, "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'");
    any.row();
    if (any.col_int64(0) != 0) {
      throw FatalError(db.path().string() + " is not a MudJack results database (no meta table)");
    }
    return "0.0";
  }
  Statement q(db, "SELECT value FROM meta WHERE key='schema_version'");
  if (!q.row()) {
    throw FatalError(db.path().string() + " is not a MudJack results database (no schema_version)");
  }
  return q.col_text(0);
}

namespace {

// How long a writer waits for another process's write lock.
constexpr int kBusyTimeoutMs = 10000;

// The first read touches the file: garbage reads as unreadable, damage as
// unreadable or a quick_check finding. FatalError naming the file otherwise.
void require_sound(const Connection& db, const QuickCheck& check) {
  const auto not_ours = [&](const std::string& why) {
    return FatalError(db.path().string() + " is not a MudJack results database (" + why + ")");
  };
  switch (check.status) {
    case QuickCheck::Status::kOk:
      return;
    case QuickCheck::Status::kUnreadable:
      throw not_ours(check.message);
    case QuickCheck::Status::kCorrupt:
      throw not_ours("corrupt: " + check.message);
    case QuickCheck::Status::kError:
      throw FatalError("cannot open results database " + db.path().string() + ": " + check.message);
  }
}

void require_sound(const Connection& db) {
  require_sound(db, quick_check(db));
}

// The stored schema version, refused when the file is not ours, unreadable
// or of a newer MAJOR than `mine`; "0.0" for an empty database.
std::pair<int, int> stored_version(const Connection& db, std::pair<int, int> mine) {
  std::string stored = read_version(db);
  auto have = model::parse_schema_version(stored);
  if (!have) {
    throw FatalError(db.path().string() + " has an unreadable schema version '" + stored + "'");
  }
  if (have->first > mine.first) {
    throw FatalError(db.path().string() + " has schema " + stored + "; this mudjack reads " +
                     std::to_string(mine.first) + ".x");
  }
  return *have;
}

// An existing file opened for reading only, its soundness checked. Where
// SQLite cannot open a WAL database read-only (a read-only folder: no -shm
// can be made), the file is read as immutable: nobody can be writing it
// there. A lock held by a writer is waited for, never read past.
Connection open_for_reading(const std::filesystem::path& file) {
  {
    auto db = Connection::open(file, kBusyTimeoutMs, Access::kReadOnly);
    auto check = quick_check(db);
    if (!check.cannot_open_beside) {
      require_sound(db, check);
      return db;
    }
  }
  auto db = Connection::open(file, kBusyTimeoutMs, Access::kImmutable);
  require_sound(db);
  return db;
}

}  // namespace

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> kMigrations = {
      {"1.0", kSchema_1_0}, {"1.1", kSchema_1_1}, {"1.2", kSchema_1_2},
      {"1.3", kSchema_1_3}, {"1.4", kSchema_1_4}, {"1.5", kSchema_1_5},
  };
  return kMigrations;
}

std::unique_ptr<Store> Store::open(const std::filesystem::path& db_path) {
  return open(db_path, migrations());
}

std::unique_ptr<Store> Store::open(const std::filesystem::path& db_path,
                                   const std::vector<Migration>& steps) {
  std::filesystem::path parent = db_path.parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) {
      throw FatalError("cannot create results folder " + parent.string() + ": " + ec.message());
    }
  }
  const auto mine = must_parse_version(steps.empty() ? "0.0" : steps.back().version);
  std::error_code ec;
  const bool exists = std::filesystem::file_size(db_path, ec) > 0 && !ec;
  if (exists) {
    // A file that is there already is read-only until it is known to be ours:
    // a foreign one is refused unchanged (not switched to WAL, no journal
    // rolled back, no table made). Its quick_check is not repeated below.
    stored_version(open_for_reading(db_path), mine);
  }
  auto db = Connection::open(db_path, kBusyTimeoutMs);
  if (!exists) {
    require_sound(db);
  }
  stored_version(db, mine);  // again: another process may have made the file since
  std::unique_ptr<Store> store(new Store(std::move(db)));
  store->db_.exec("PRAGMA journal_mode=WAL");
  store->db_.exec("PRAGMA synchronous=NORMAL");
  // A newer MINOR of our MAJOR is additive: read it as is, never downgrade.
  if (stored_version(store->db_, mine) < mine) {
    store->migrate(steps);
  }
  store->remember_file(db_path);
  return store;
}

std::unique_ptr<Store> Store::open_read_only(const std::filesystem::path& db_path) {
  const auto& steps = migrations();
  const auto mine = must_parse_version(steps.back().version);
  auto db = open_for_reading(db_path);
  std::unique_ptr<Store> store;
  if (stored_version(db, mine) < mine) {
    // Older schema: migrate a private copy, so the file stays as it was.
    auto copy = Connection::memory(db_path);
    copy.copy_from(db);
    store.reset(new Store(std::move(copy)));
    store->migrate(steps);
  } else {
    store.reset(new Store(std::move(db)));
  }
  // Writes fail (also to the copy, where they would vanish unseen).
  store->db_.exec("PRAGMA query_only = 1");
  store->remember_file(db_path);
  return store;
}

void Store::migrate(const std::vector<Migration>& steps) {
  std::lock_guard lock(mu_);
  for (const auto& step : steps) {
    const auto target = must_parse_version(step.version);
    Transaction tx(db_);
    // Re-read inside the write lock: another process may have migrated.
    auto have = model::parse_schema_version(read_version(db_));
    if (have && *have >= target) {
      continue;  // rolls back an empty transaction
    }
    for (const auto& sql : step.sql) {
      db_.exec(sql);
    }
    Statement q(db_, "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?1)");
    q.text(1, step.version).run();
    tx.commit();
  }
}

}  // namespace mudjack::store
