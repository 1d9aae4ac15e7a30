#include "store/store.hpp"

#include <sys/stat.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <limits>
#include <system_error>

#include "store/sqlite.hpp"
#include "util/error.hpp"

namespace mudjack::store {
namespace {

using nlohmann::json;
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

std::string now_utc_iso() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  size_t len = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + len, sizeof buf - len, ".%03dZ", static_cast<int>(ms.count()));
  return buf;
}

// Dumps JSON for storage; invalid UTF-8 (a probe's stderr) is replaced, never
// thrown on.
std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// meta.schema_version, or "0.0" for an empty database. Throws when the file
// holds other tables but no MudJack meta.
std::string read_version(const Connection& db) {
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

json output_to_json(const model::OutputRef& o) {
  return {{"path", o.path}, {"dtype", o.dtype}, {"saved_dtype", o.saved_dtype}, {"shape", o.shape}};
}

model::OutputRef output_from_json(const json& j) {
  model::OutputRef o;
  o.path = j.value("path", "");
  o.dtype = j.value("dtype", "");
  o.saved_dtype = j.value("saved_dtype", "");
  if (j.contains("shape")) {
    o.shape = j.at("shape").get<std::vector<int64_t>>();
  }
  return o;
}

model::RunInfo run_from_row(const Statement& q) {
  model::RunInfo r;
  r.id = q.col_text(0);
  r.suite = q.col_text(1);
  r.state = q.col_text(2);
  r.created_at = q.col_text(3);
  r.finished_at = q.col_text(4);
  r.baseline = q.col_text(5);
  r.options = q.col_json(6, "run options");
  if (r.options.is_null()) {
    r.options = json::object();
  }
  r.environment = q.col_json(7, "run environment");
  if (r.environment.is_null()) {
    r.environment = json::object();
  }
  return r;
}

constexpr std::string_view kRunColumns =
    "id, suite, state, created_at, finished_at, baseline, options_json, environment_json";

// Case metadata columns, in the order case_from_row() reads them from `first`.
constexpr std::string_view kCaseColumns =
    "c.case_id, c.framework, c.function, c.variant, c.dtype, c.shape, c.mode, c.compiler, "
    "c.params_json, c.requires_json, c.dims_json, c.note, c.successor, c.rtol, c.atol, "
    "c.tags_json, c.oracle_json";

void case_from_row(const Statement& q, int first, model::CaseInfo& c) {
  int i = first;
  c.id = q.col_text(i++);
  c.framework = q.col_text(i++);
  c.function = q.col_text(i++);
  c.variant = q.col_text(i++);
  c.dtype = q.col_text(i++);
  c.shape = q.col_text(i++);
  c.mode = q.col_text(i++);
  c.compiler = q.col_text(i++);
  json params = q.col_json(i++, "case params");
  c.params = params.is_null() ? json::object() : params;
  json req = q.col_json(i++, "case requires");
  c.requires_ = req.is_null() ? json::object() : req;
  json dims = q.col_json(i++, "case dims");
  c.dims = dims.is_null() ? json::array() : dims;
  c.note = q.col_text(i++);
  c.successor = q.col_text(i++);
  c.rtol = q.col_opt_real(i++);
  c.atol = q.col_opt_real(i++);
  json tags = q.col_json(i++, "case tags");
  if (tags.is_array()) {
    c.tags = tags.get<std::vector<std::string>>();
  }
  model::oracle_meta_from_json(q.col_json(i++, "case oracle"), c);
}

// Result columns, then the joined case columns (kCaseColumns) from index 37.
constexpr std::string_view kResultColumns =
    "r.run_id, r.case_id, r.device, r.outcome, r.error_kind, r.error_message, r.error_signal, "
    "r.error_exit_code, r.error_stderr_tail, r.error_traceback, r.cold_ns, r.samples_json, "
    "r.calls_per_sample, r.median_ns, r.p10_ns, r.p90_ns, r.iqr_ns, r.mean_ns, r.stddev_ns, "
    "r.cv, r.min_ns, r.n, r.peak_device_bytes, r.peak_host_bytes, r.max_abs_err, "
    "r.max_rel_err, r.compared_with, r.numeric_message, r.outputs_json, r.extra_json, "
    "r.started_at, r.finished_at, r.wall_s, r.work_json, r.metrics_json, r.accuracy_json, "
    "r.timing_json";
constexpr int kResultColumnCount = 37;

// Columns 3-9: the outcome and its error.
void outcome_from_row(const Statement& q, const std::filesystem::path& path,
                      const std::string& case_id, model::CaseResult& r) {
  std::string outcome = q.col_text(3);
  auto o = model::parse_outcome(outcome);
  if (!o) {
    throw FatalError(path.string() + ": stored result " + case_id + " has unknown outcome '" +
                     outcome + "'");
  }
  r.outcome = *o;
  std::string kind = q.col_text(4);
  auto k = model::parse_error_kind(kind);
  if (!k) {
    throw FatalError(path.string() + ": stored result " + case_id + " has unknown error kind '" +
                     kind + "'");
  }
  r.error.kind = *k;
  r.error.message = q.col_text(5);
  if (!q.is_null(6)) {
    r.error.signal = static_cast<int>(q.col_int64(6));
  }
  if (!q.is_null(7)) {
    r.error.exit_code = static_cast<int>(q.col_int64(7));
  }
  r.error.stderr_tail = q.col_text(8);
  r.error.traceback = q.col_text(9);
}

// Columns 10-21: cold time, samples and their statistics (all NULL, n
// included, when there were no samples).
void latency_from_row(const Statement& q, model::CaseResult& r) {
  r.latency.cold_ns = q.col_opt_int64(10);
  json samples = q.col_json(11, "samples");
  if (samples.is_array()) {
    r.latency.samples_ns.reserve(samples.size());
    // NaN samples were dumped as null; keep the count honest.
    for (const auto& s : samples) {
      r.latency.samples_ns.push_back(s.is_number() ? s.get<double>()
                                                   : std::numeric_limits<double>::quiet_NaN());
    }
  }
  r.latency.calls_per_sample = q.col_int64(12);
  if (q.is_null(21)) {
    return;
  }
  model::LatencyStats s;
  s.median_ns = q.col_real_or_nan(13);
  s.p10_ns = q.col_real_or_nan(14);
  s.p90_ns = q.col_real_or_nan(15);
  s.iqr_ns = q.col_real_or_nan(16);
  s.mean_ns = q.col_real_or_nan(17);
  s.stddev_ns = q.col_real_or_nan(18);
  s.cv = q.col_real_or_nan(19);
  s.min_ns = q.col_real_or_nan(20);
  s.n = q.col_int64(21);
  r.latency.stats = s;
}

// Columns 28-34: output files, extras, times, work and metrics.
void rest_from_row(const Statement& q, const std::filesystem::path& path,
                   const std::string& case_id, model::CaseResult& r) {
  json outputs = q.col_json(28, "outputs");
  if (outputs.is_array()) {
    try {
      for (const auto& o : outputs) {
        r.outputs.push_back(output_from_json(o));
      }
    } catch (const json::exception& e) {
      throw FatalError(path.string() + ": stored outputs of " + case_id +
                       " are malformed: " + e.what());
    }
  }
  json extra = q.col_json(29, "extra");
  r.extra = extra.is_null() ? json::object() : extra;
  r.started_at = q.col_text(30);
  r.finished_at = q.col_text(31);
  r.wall_s = q.col_real(32);
  r.work = model::work_from_json(q.col_json(33, "work"));
  r.metrics = model::metrics_from_json(q.col_json(34, "metrics"));
  model::accuracy_from_json(q.col_json(35, "accuracy"), r.numeric);
  r.latency.timing = model::timing_from_json(q.col_json(36, "timing"));
}

// One row of kResultColumns + kCaseColumns. `path` names the database in errors.
model::CaseResult result_from_row(const Statement& q, const std::filesystem::path& path) {
  model::CaseResult r;
  r.run_id = q.col_text(0);
  std::string case_id = q.col_text(1);
  r.device = q.col_text(2);
  outcome_from_row(q, path, case_id, r);
  latency_from_row(q, r);
  r.memory.peak_device_bytes = q.col_opt_int64(22);
  r.memory.peak_host_bytes = q.col_opt_int64(23);
  r.numeric.max_abs_err = q.col_opt_real(24);
  r.numeric.max_rel_err = q.col_opt_real(25);
  r.numeric.compared_with = q.col_text(26);
  r.numeric.message = q.col_text(27);
  rest_from_row(q, path, case_id, r);
  if (q.is_null(kResultColumnCount)) {
    // No stored metadata (cannot happen through record()); keep the id.
    r.info.id = case_id;
  } else {
    case_from_row(q, kResultColumnCount, r.info);
  }
  return r;
}

void upsert_case(Statement& q, const std::string& run_id, const model::CaseInfo& c) {
  q.reset();
  q.text(1, run_id)
      .text(2, c.id)
      .text(3, c.framework)
      .text(4, c.function)
      .text(5, c.variant)
      .text(6, c.dtype)
      .text(7, c.shape)
      .text(8, c.mode)
      .text(9, c.compiler)
      .text(10, dump(c.params))
      .text(11, dump(c.requires_))
      .text(12, dump(c.dims))
      .text(13, c.note)
      .text(14, c.successor)
      .opt_real(15, c.rtol)
      .opt_real(16, c.atol)
      .text(17, dump(json(c.tags)))
      .text(18, dump(model::oracle_meta_to_json(c)));
  q.run();
}

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

constexpr std::string_view kCaseInsertTail =
    " INTO cases (run_id, case_id, framework, function, variant, dtype, shape, mode, "
    "compiler, params_json, requires_json, dims_json, note, successor, rtol, atol, tags_json, "
    "oracle_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
    "?17, ?18)";

// The columns record() and hold() write, in bind_result()'s order.
constexpr std::string_view kResultInsertColumns =
    "run_id, case_id, device, outcome, error_kind, error_message, error_signal, "
    "error_exit_code, error_stderr_tail, error_traceback, cold_ns, samples_json, "
    "calls_per_sample, median_ns, p10_ns, p90_ns, iqr_ns, mean_ns, stddev_ns, cv, min_ns, n, "
    "peak_device_bytes, peak_host_bytes, max_abs_err, max_rel_err, compared_with, "
    "numeric_message, outputs_json, extra_json, started_at, finished_at, wall_s, work_json, "
    "metrics_json, accuracy_json, timing_json";
constexpr std::string_view kResultInsertValues =
    "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, "
    "?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37";

std::optional<int64_t> opt_int(std::optional<int> v) {
  if (v) return *v;
  return std::nullopt;
}

// Binds ?1-?37 of kResultInsertColumns.
void bind_result(Statement& q, const model::CaseResult& r) {
  json outputs = json::array();
  for (const auto& o : r.outputs) outputs.push_back(output_to_json(o));
  q.text(1, r.run_id)
      .text(2, r.info.id)
      .text(3, r.device)
      .text(4, model::to_string(r.outcome))
      .text(5, model::to_string(r.error.kind))
      .text(6, r.error.message)
      .opt_int64(7, opt_int(r.error.signal))
      .opt_int64(8, opt_int(r.error.exit_code))
      .text(9, r.error.stderr_tail)
      .text(10, r.error.traceback)
      .opt_int64(11, r.latency.cold_ns)
      .text(12, dump(json(r.latency.samples_ns)))
      .int64(13, r.latency.calls_per_sample);
  if (const auto& s = r.latency.stats) {
    q.real(14, s->median_ns)
        .real(15, s->p10_ns)
        .real(16, s->p90_ns)
        .real(17, s->iqr_ns)
        .real(18, s->mean_ns)
        .real(19, s->stddev_ns)
        .real(20, s->cv)
        .real(21, s->min_ns)
        .int64(22, s->n);
  } else {
    for (int i = 14; i <= 22; ++i) q.null(i);
  }
  q.opt_int64(23, r.memory.peak_device_bytes)
      .opt_int64(24, r.memory.peak_host_bytes)
      .opt_real(25, r.numeric.max_abs_err)
      .opt_real(26, r.numeric.max_rel_err)
      .text(27, r.numeric.compared_with)
      .text(28, r.numeric.message)
      .text(29, dump(outputs))
      .text(30, dump(r.extra))
      .text(31, r.started_at)
      .text(32, r.finished_at)
      .real(33, r.wall_s)
      .text(34, dump(model::work_to_json(r.work)))
      .text(35, dump(model::metrics_to_json(r.metrics)))
      .text(36, dump(model::accuracy_to_json(r.numeric)))
      .text(37, dump(model::timing_to_json(r.latency.timing)));
}

}  // namespace

std::filesystem::path default_db_path(const std::filesystem::path& results_dir) {
  return results_dir / kDatabaseFileName;
}

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

Store::Store(Connection db) : db_(std::move(db)) {}

Store::~Store() = default;

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

void Store::remember_file(const std::filesystem::path& file) {
  file_ = file;
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0) {
    device_ = static_cast<uint64_t>(st.st_dev);
    inode_ = static_cast<uint64_t>(st.st_ino);
  }
}

bool Store::still_at_path() const {
  struct stat st {};
  if (::stat(file_.c_str(), &st) != 0) return false;
  return static_cast<uint64_t>(st.st_dev) == device_ && static_cast<uint64_t>(st.st_ino) == inode_;
}

std::string Store::schema_version() const {
  std::lock_guard lock(mu_);
  return read_version(db_);
}

void Store::require_run(const std::string& run_id) const {
  Statement q(db_, "SELECT 1 FROM runs WHERE id = ?1");
  q.text(1, run_id);
  if (!q.row()) {
    throw FatalError("no run " + run_id + " in " + db_.path().string());
  }
}

void Store::create_run(const model::RunInfo& run) {
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  {
    Statement exists(db_, "SELECT 1 FROM runs WHERE id = ?1");
    exists.text(1, run.id);
    if (exists.row()) {
      throw FatalError("run " + run.id + " already exists in " + db_.path().string());
    }
  }
  Statement q(
      db_,
      "INSERT INTO runs (id, suite, state, created_at, finished_at, baseline, options_json, "
      "environment_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  q.text(1, run.id)
      .text(2, run.suite)
      .text(3, run.state)
      .text(4, run.created_at)
      .text(5, run.finished_at)
      .text(6, run.baseline)
      .text(7, dump(run.options))
      .text(8, dump(run.environment))
      .run();
  tx.commit();
}

void Store::set_run_state(const std::string& run_id, const std::string& state,
                          const std::string& finished_at) {
  std::lock_guard lock(mu_);
  Statement q(db_, "UPDATE runs SET state = ?2, finished_at = ?3 WHERE id = ?1");
  q.text(1, run_id).text(2, state).text(3, finished_at).run();
  if (db_.changes() == 0) {
    throw FatalError("no run " + run_id + " in " + db_.path().string());
  }
}

void Store::set_environment(const std::string& run_id, const nlohmann::json& environment) {
  std::lock_guard lock(mu_);
  Statement q(db_, "UPDATE runs SET environment_json = ?2 WHERE id = ?1");
  q.text(1, run_id).text(2, dump(environment)).run();
  if (db_.changes() == 0) {
    throw FatalError("no run " + run_id + " in " + db_.path().string());
  }
}

std::optional<model::RunInfo> Store::get_run(const std::string& run_id) const {
  std::lock_guard lock(mu_);
  Statement q(db_, "SELECT " + std::string(kRunColumns) + " FROM runs WHERE id = ?1");
  q.text(1, run_id);
  if (!q.row()) {
    return std::nullopt;
  }
  return run_from_row(q);
}

std::vector<model::RunInfo> Store::list_runs(std::vector<BadRow>* bad) const {
  std::lock_guard lock(mu_);
  Statement q(db_, "SELECT " + std::string(kRunColumns) +
                       " FROM runs ORDER BY created_at DESC, rowid DESC");
  std::vector<model::RunInfo> out;
  while (q.row()) {
    try {
      out.push_back(run_from_row(q));
    } catch (const FatalError& e) {
      if (bad != nullptr) {
        bad->push_back({q.col_text(0), e.what()});
      }
    }
  }
  return out;
}

RunCounts Store::counts(const std::string& run_id) const {
  std::lock_guard lock(mu_);
  RunCounts c;
  Statement planned(db_, "SELECT count(*) FROM planned WHERE run_id = ?1");
  planned.text(1, run_id).row();
  c.planned = static_cast<size_t>(planned.col_int64(0));
  Statement results(db_, "SELECT count(*) FROM results WHERE run_id = ?1");
  results.text(1, run_id).row();
  c.results = static_cast<size_t>(results.col_int64(0));
  return c;
}

void Store::add_plan(const std::string& run_id, const std::vector<model::CaseInfo>& cases,
                     const std::vector<CaseDevice>& pairs) {
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  require_run(run_id);
  Statement ins_case(db_, "INSERT OR REPLACE" + std::string(kCaseInsertTail));
  for (const auto& c : cases) {
    upsert_case(ins_case, run_id, c);
  }
  int64_t seq = 0;
  {
    Statement q(db_, "SELECT coalesce(max(seq), -1) + 1 FROM planned WHERE run_id = ?1");
    q.text(1, run_id).row();
    seq = q.col_int64(0);
  }
  Statement ins(
      db_, "INSERT OR IGNORE INTO planned (run_id, case_id, device, seq) VALUES (?1, ?2, ?3, ?4)");
  for (const auto& [case_id, device] : pairs) {
    ins.reset();
    ins.text(1, run_id).text(2, case_id).text(3, device).int64(4, seq).run();
    if (db_.changes() > 0) {
      ++seq;
    }
  }
  tx.commit();
}

std::vector<CaseDevice> Store::plan(const std::string& run_id) const {
  std::lock_guard lock(mu_);
  Statement q(db_, "SELECT case_id, device FROM planned WHERE run_id = ?1 ORDER BY seq");
  q.text(1, run_id);
  std::vector<CaseDevice> out;
  while (q.row()) {
    out.emplace_back(q.col_text(0), q.col_text(1));
  }
  return out;
}

std::vector<model::CaseInfo> Store::cases(const std::string& run_id) const {
  std::lock_guard lock(mu_);
  Statement q(db_, "SELECT " + std::string(kCaseColumns) +
                       " FROM cases c WHERE c.run_id = ?1 ORDER BY c.case_id");
  q.text(1, run_id);
  std::vector<model::CaseInfo> out;
  while (q.row()) {
    model::CaseInfo c;
    case_from_row(q, 0, c);
    out.push_back(std::move(c));
  }
  return out;
}

void Store::record(const model::CaseResult& r) {
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  {
    Statement ins_case(db_, "INSERT OR IGNORE" + std::string(kCaseInsertTail));
    upsert_case(ins_case, r.run_id, r.info);
  }
  Statement q(db_, "INSERT OR REPLACE INTO results (" + std::string(kResultInsertColumns) +
                       ") VALUES (" + std::string(kResultInsertValues) + ")");
  bind_result(q, r);
  q.run();
  // The final result replaces the rounds held for it, in the same commit:
  // a pair is never both held and stored, nor neither.
  Statement drop(db_, "DELETE FROM held WHERE run_id = ?1 AND case_id = ?2 AND device = ?3");
  drop.text(1, r.run_id).text(2, r.info.id).text(3, r.device).run();
  tx.commit();
}

void Store::hold(const model::CaseResult& r, int rounds) {
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  {
    Statement ins_case(db_, "INSERT OR IGNORE" + std::string(kCaseInsertTail));
    upsert_case(ins_case, r.run_id, r.info);
  }
  Statement q(db_, "INSERT OR REPLACE INTO held (" + std::string(kResultInsertColumns) +
                       ", rounds) VALUES (" + std::string(kResultInsertValues) + ", ?38)");
  bind_result(q, r);
  q.int64(38, rounds).run();
  tx.commit();
}

std::vector<HeldResult> Store::held(const std::string& run_id) const {
  std::lock_guard lock(mu_);
  Statement q(db_, "SELECT " + std::string(kResultColumns) + ", " + std::string(kCaseColumns) +
                       ", r.rounds FROM held r"
                       " LEFT JOIN cases c ON c.run_id = r.run_id AND c.case_id = r.case_id"
                       " LEFT JOIN planned p ON p.run_id = r.run_id AND p.case_id = r.case_id"
                       " AND p.device = r.device"
                       " WHERE r.run_id = ?1 AND NOT EXISTS (SELECT 1 FROM results x"
                       " WHERE x.run_id = r.run_id AND x.case_id = r.case_id"
                       " AND x.device = r.device)"
                       " ORDER BY p.seq IS NULL, p.seq, r.case_id, r.device");
  q.text(1, run_id);
  std::vector<HeldResult> out;
  constexpr int kRoundsColumn = kResultColumnCount + 17;  // after kCaseColumns
  while (q.row()) {
    out.push_back({result_from_row(q, db_.path()), static_cast<int>(q.col_int64(kRoundsColumn))});
  }
  return out;
}

void Store::record_change(const std::string& run_id, const std::string& case_id,
                          const std::string& device, model::Outcome from, model::Outcome to,
                          const std::string& reason) {
  std::lock_guard lock(mu_);
  Statement q(
      db_,
      "INSERT INTO outcome_changes (run_id, case_id, device, from_outcome, to_outcome, reason, "
      "at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  q.text(1, run_id)
      .text(2, case_id)
      .text(3, device)
      .text(4, model::to_string(from))
      .text(5, model::to_string(to))
      .text(6, reason)
      .text(7, now_utc_iso())
      .run();
}

std::vector<OutcomeChange> Store::changes(const std::string& run_id) const {
  std::lock_guard lock(mu_);
  Statement q(db_,
              "SELECT run_id, case_id, device, from_outcome, to_outcome, reason, at "
              "FROM outcome_changes WHERE run_id = ?1 ORDER BY id");
  q.text(1, run_id);
  std::vector<OutcomeChange> out;
  while (q.row()) {
    OutcomeChange c;
    c.run_id = q.col_text(0);
    c.case_id = q.col_text(1);
    c.device = q.col_text(2);
    auto from = model::parse_outcome(q.col_text(3));
    auto to = model::parse_outcome(q.col_text(4));
    if (!from || !to) {
      throw FatalError(db_.path().string() + ": stored outcome change of " + c.case_id +
                       " has an unknown outcome");
    }
    c.from = *from;
    c.to = *to;
    c.reason = q.col_text(5);
    c.at = q.col_text(6);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<model::CaseResult> Store::results(const std::string& run_id) const {
  std::lock_guard lock(mu_);
  Statement q(db_, "SELECT " + std::string(kResultColumns) + ", " + std::string(kCaseColumns) +
                       " FROM results r"
                       " LEFT JOIN cases c ON c.run_id = r.run_id AND c.case_id = r.case_id"
                       " LEFT JOIN planned p ON p.run_id = r.run_id AND p.case_id = r.case_id"
                       " AND p.device = r.device"
                       " WHERE r.run_id = ?1"
                       " ORDER BY p.seq IS NULL, p.seq, r.case_id, r.device");
  q.text(1, run_id);
  std::vector<model::CaseResult> out;
  while (q.row()) {
    out.push_back(result_from_row(q, db_.path()));
  }
  return out;
}

std::optional<model::CaseResult> Store::result(const std::string& run_id,
                                               const std::string& case_id,
                                               const std::string& device) const {
  std::lock_guard lock(mu_);
  Statement q(db_, "SELECT " + std::string(kResultColumns) + ", " + std::string(kCaseColumns) +
                       " FROM results r"
                       " LEFT JOIN cases c ON c.run_id = r.run_id AND c.case_id = r.case_id"
                       " WHERE r.run_id = ?1 AND r.case_id = ?2 AND r.device = ?3");
  q.text(1, run_id).text(2, case_id).text(3, device);
  if (!q.row()) {
    return std::nullopt;
  }
  return result_from_row(q, db_.path());
}

std::vector<CaseDevice> Store::remaining(const std::string& run_id) const {
  std::lock_guard lock(mu_);
  Statement q(db_,
              "SELECT p.case_id, p.device FROM planned p WHERE p.run_id = ?1 AND NOT EXISTS ("
              "SELECT 1 FROM results r WHERE r.run_id = p.run_id AND r.case_id = p.case_id"
              " AND r.device = p.device) ORDER BY p.seq");
  q.text(1, run_id);
  std::vector<CaseDevice> out;
  while (q.row()) {
    out.emplace_back(q.col_text(0), q.col_text(1));
  }
  return out;
}

namespace {

constexpr std::string_view kLeaseColumns =
    "run_id, host, pid, process_start, acquired_at, heartbeat_at, heartbeat_unix_ms";

Lease lease_from_row(const Statement& q) {
  Lease l;
  l.run_id = q.col_text(0);
  l.host = q.col_text(1);
  l.pid = q.col_int64(2);
  l.process_start = q.col_text(3);
  l.acquired_at = q.col_text(4);
  l.heartbeat_at = q.col_text(5);
  l.heartbeat_unix_ms = q.col_int64(6);
  return l;
}

std::optional<Lease> read_lease(const Connection& db, const std::string& run_id) {
  Statement q(db, "SELECT " + std::string(kLeaseColumns) + " FROM leases WHERE run_id = ?1");
  q.text(1, run_id);
  if (!q.row()) {
    return std::nullopt;
  }
  return lease_from_row(q);
}

// The WHERE clause that matches `mine`'s owner (binds 1-4).
constexpr std::string_view kSameOwner =
    " WHERE run_id = ?1 AND host = ?2 AND pid = ?3 AND process_start = ?4";

}  // namespace

std::optional<Lease> Store::acquire_lease(const Lease& mine,
                                          const std::function<bool(const Lease&)>& stale) {
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  if (auto holder = read_lease(db_, mine.run_id); holder && !stale(*holder)) {
    return holder;  // rolls back an empty transaction
  }
  Statement q(db_, "INSERT OR REPLACE INTO leases (" + std::string(kLeaseColumns) +
                       ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  q.text(1, mine.run_id)
      .text(2, mine.host)
      .int64(3, mine.pid)
      .text(4, mine.process_start)
      .text(5, mine.acquired_at)
      .text(6, mine.heartbeat_at)
      .int64(7, mine.heartbeat_unix_ms)
      .run();
  tx.commit();
  return std::nullopt;
}

bool Store::renew_lease(const Lease& mine) {
  std::lock_guard lock(mu_);
  Statement q(
      db_, "UPDATE leases SET heartbeat_at = ?5, heartbeat_unix_ms = ?6" + std::string(kSameOwner));
  q.text(1, mine.run_id)
      .text(2, mine.host)
      .int64(3, mine.pid)
      .text(4, mine.process_start)
      .text(5, mine.heartbeat_at)
      .int64(6, mine.heartbeat_unix_ms)
      .run();
  return db_.changes() > 0;
}

void Store::release_lease(const Lease& mine) {
  std::lock_guard lock(mu_);
  Statement q(db_, "DELETE FROM leases" + std::string(kSameOwner));
  q.text(1, mine.run_id).text(2, mine.host).int64(3, mine.pid).text(4, mine.process_start).run();
}

void Store::delete_run(const std::string& run_id) {
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  require_run(run_id);
  for (const char* table : {"outcome_changes", "results", "held", "planned", "cases", "leases"}) {
    Statement q(db_, "DELETE FROM " + std::string(table) + " WHERE run_id = ?1");
    q.text(1, run_id).run();
  }
  Statement q(db_, "DELETE FROM runs WHERE id = ?1");
  q.text(1, run_id).run();
  tx.commit();
}

std::optional<Lease> Store::lease(const std::string& run_id) const {
  std::lock_guard lock(mu_);
  return read_lease(db_, run_id);
}

}  // namespace mudjack::store
