#include "store/sqlite.hpp"

#include <sqlite3.h>

#include <cctype>
#include <limits>

#include "util/error.hpp"

namespace mudjack::store {
namespace {

using nlohmann::json;
using util::FatalError;

// The first line of a quick_check report that names a finding: the report
// may span lines ("*** in database main ***\nPage 4: ...").
std::string first_finding(const std::string& report) {
  size_t pos = 0;
  while (pos < report.size()) {
    size_t end = report.find('\n', pos);
    if (end == std::string::npos) {
      end = report.size();
    }
    std::string line = report.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.rfind("***", 0) != 0) {
      return line;
    }
  }
  return "quick_check failed";
}

// A file: URI (https://sqlite.org/uri.html) opening `file` read-only, or
// immutable; bytes outside the unreserved set are percent-encoded.
std::string file_uri(const std::filesystem::path& file, bool immutable) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (unsigned char c : std::filesystem::absolute(file).string()) {
    if (std::isalnum(c) != 0 || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
}

}  // namespace

// --- Connection -------------------------------------------------------------

Connection Connection::open(const std::filesystem::path& file, int busy_timeout_ms, Access access) {
  sqlite3* db = nullptr;
  int rc = SQLITE_OK;
  if (access == Access::kReadWrite) {
    rc = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  } else {
    const std::string uri = file_uri(file, access == Access::kImmutable);
    rc = sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  }
  if (rc != SQLITE_OK) {
    std::string msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    throw FatalError("cannot open results database " + file.string() + ": " + msg);
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return Connection(file, db);
}

Connection Connection::memory(const std::filesystem::path& label) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close(db);
    throw FatalError("cannot copy results database " + label.string() +
                     " to memory: " + sqlite3_errstr(rc));
  }
  sqlite3_extended_result_codes(db, 1);
  return Connection(label, db);
}

void Connection::copy_from(const Connection& from) const {
  sqlite3_backup* backup = sqlite3_backup_init(db_, "main", from.db_, "main");
  if (backup == nullptr) fail();
  const int rc = sqlite3_backup_step(backup, -1);
  sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) {
    throw FatalError("cannot read results database " + from.path_.string() + ": " +
                     sqlite3_errstr(rc));
  }
}

Connection::~Connection() {
  sqlite3_close(db_);  // a no-op for nullptr (a moved-from connection)
}

Connection::Connection(Connection&& other) noexcept
    : path_(std::move(other.path_)), db_(other.db_) {
  other.db_ = nullptr;
}

void Connection::exec(const std::string& sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err != nullptr ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw FatalError("results database " + path_.string() + ": " + msg);
  }
}

int64_t Connection::changes() const {
  return sqlite3_changes(db_);
}

std::string Connection::last_error() const {
  return sqlite3_errmsg(db_);
}

void Connection::fail() const {
  throw FatalError("results database " + path_.string() + ": " + last_error());
}

QuickCheck quick_check(const Connection& db) {
  sqlite3_stmt* st = nullptr;
  int rc = sqlite3_prepare_v2(db.handle(), "PRAGMA quick_check", -1, &st, nullptr);
  std::string report;
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
      const auto* p = sqlite3_column_text(st, 0);
      report = p != nullptr ? reinterpret_cast<const char*>(p) : "";
      rc = SQLITE_OK;
    }
  }
  std::string msg = db.last_error();
  sqlite3_finalize(st);
  int primary = rc & 0xff;
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) {
    return {QuickCheck::Status::kUnreadable, msg, false};
  }
  if (rc != SQLITE_OK && rc != SQLITE_DONE) {
    return {QuickCheck::Status::kError, msg,
            primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY};
  }
  if (!report.empty() && report != "ok") {
    return {QuickCheck::Status::kCorrupt, first_finding(report), false};
  }
  return {};
}

// --- Statement --------------------------------------------------------------

Statement::Statement(const Connection& db, std::string_view sql) : db_(db) {
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &st_, nullptr) !=
      SQLITE_OK) {
    db.fail();
  }
}

Statement::~Statement() {
  sqlite3_finalize(st_);
}

void Statement::check(int rc) const {
  if (rc != SQLITE_OK) {
    db_.fail();
  }
}

Statement& Statement::text(int i, std::string_view s) {
  check(sqlite3_bind_text(st_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT));
  return *this;
}

Statement& Statement::int64(int i, int64_t v) {
  check(sqlite3_bind_int64(st_, i, v));
  return *this;
}

Statement& Statement::real(int i, double v) {
  check(sqlite3_bind_double(st_, i, v));
  return *this;
}

Statement& Statement::null(int i) {
  check(sqlite3_bind_null(st_, i));
  return *this;
}

bool Statement::row() {
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc == SQLITE_DONE) {
    return false;
  }
  db_.fail();
}

void Statement::run() {
  while (row()) {
  }
}

void Statement::reset() {
  sqlite3_reset(st_);
  sqlite3_clear_bindings(st_);
}

bool Statement::is_null(int col) const {
  return sqlite3_column_type(st_, col) == SQLITE_NULL;
}

std::string Statement::col_text(int col) const {
  const auto* p = sqlite3_column_text(st_, col);
  if (p == nullptr) {
    return {};
  }
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<size_t>(sqlite3_column_bytes(st_, col)));
}

int64_t Statement::col_int64(int col) const {
  return sqlite3_column_int64(st_, col);
}

double Statement::col_real(int col) const {
  return sqlite3_column_double(st_, col);
}

std::optional<int64_t> Statement::col_opt_int64(int col) const {
  if (is_null(col)) {
    return std::nullopt;
  }
  return col_int64(col);
}

std::optional<double> Statement::col_opt_real(int col) const {
  if (is_null(col)) {
    return std::nullopt;
  }
  return col_real(col);
}

double Statement::col_real_or_nan(int col) const {
  return is_null(col) ? std::numeric_limits<double>::quiet_NaN() : col_real(col);
}

json Statement::col_json(int col, std::string_view what) const {
  std::string s = col_text(col);
  if (s.empty()) {
    return nullptr;
  }
  try {
    return json::parse(s);
  } catch (const json::exception& e) {
    throw FatalError(db_.path().string() + ": stored " + std::string(what) +
                     " is not valid JSON: " + e.what());
  }
}

// --- Transaction ------------------------------------------------------------

Transaction::Transaction(const Connection& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (!done_) {
    sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace mudjack::store
