#include "store/store.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <ctime>

#include "store/internal.hpp"
#include "store/sqlite.hpp"
#include "util/error.hpp"

namespace mudjack::store {
namespace {

using detail::bind_result;
using detail::case_from_row;
using detail::dump;
using detail::kCaseColumns;
using detail::kCaseInsertTail;
using detail::kLeaseColumns;
using detail::kResultColumnCount;
using detail::kResultColumns;
using detail::kResultInsertColumns;
using detail::kResultInsertValues;
using detail::kRunColumns;
using detail::lease_from_row;
using detail::read_version;
using detail::result_from_row;
using detail::run_from_row;
using detail::upsert_case;
using util::FatalError;

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

}  // namespace

std::filesystem::path default_db_path(const std::filesystem::path& results_dir) {
  return results_dir / kDatabaseFileName;
}

Store::Store(Connection db) : db_(std::move(db)) {}

Store::~Store() = default;

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
