#pragma once
// A thin RAII layer over SQLite's C API, used by the results store (and only
// by it): a connection that owns its handle, prepared statements with typed
// binds and column reads, BEGIN IMMEDIATE transactions.
//
// Contract:
//  - Every failure SQLite reports throws util::FatalError with one line,
//    "results database <file>: <SQLite's message>" (open failures say
//    "cannot open results database <file>: ..."). Nothing here returns an
//    error code; absence of a row is a value (Statement::row() is false).
//  - Nothing here locks. A Connection and its Statements are used by one
//    thread at a time; the caller serialises (Store holds a mutex around
//    every use). Methods are const where they leave the C++ object unchanged,
//    though SQLite's state changes: a Store's const reads use them.
//  - A Statement or Transaction must not outlive the Connection it was made
//    on. Binds are 1-based, columns 0-based, as in SQLite.
//  - Extended result codes are on for every connection.
//  - This header does not include <sqlite3.h>; only sqlite.cpp and the
//    store's own files touch the C API.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

struct sqlite3;
struct sqlite3_stmt;

namespace mudjack::store {

// How a file is opened.
enum class Access {
  kReadWrite,  // created if missing
  kReadOnly,   // must exist; SQLite may still need to create the WAL's -shm file
  kImmutable,  // must exist; read as a file nobody changes: no locks, no -shm
               // (a read-only folder); a WAL not yet checkpointed is not seen
};

class Connection {
 public:
  // Opens the database file with extended result codes and a busy timeout
  // for writers of other processes. Throws FatalError when SQLite cannot
  // open it; the file is not read yet.
  static Connection open(const std::filesystem::path& file, int busy_timeout_ms,
                         Access access = Access::kReadWrite);
  // An empty private in-memory database; `label` names it in messages.
  static Connection memory(const std::filesystem::path& label);

  ~Connection();  // closes the handle
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&&) = delete;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  const std::filesystem::path& path() const { return path_; }
  sqlite3* handle() const { return db_; }

  // Runs one or more statements without results (DDL, PRAGMA, BEGIN/COMMIT).
  void exec(const std::string& sql) const;
  // Replaces this database's content with a copy of `from`'s (the online
  // backup API: a consistent snapshot). FatalError when it fails.
  void copy_from(const Connection& from) const;
  // Rows changed by the last INSERT, UPDATE or DELETE.
  int64_t changes() const;
  // The connection's last error message (for callers building their own).
  std::string last_error() const;
  [[noreturn]] void fail() const;  // throws FatalError with last_error()

 private:
  Connection(std::filesystem::path path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  std::filesystem::path path_;
  sqlite3* db_;
};

// What `PRAGMA quick_check` made of a file: the first read that touches it.
struct QuickCheck {
  enum class Status {
    kOk,
    kUnreadable,  // SQLITE_NOTADB or SQLITE_CORRUPT: garbage, or too damaged to read
    kCorrupt,     // readable, but the check found damage
    kError,       // any other failure (I/O, locked)
  };
  Status status = Status::kOk;
  // kUnreadable, kError: SQLite's message. kCorrupt: the report's first
  // finding, one line ("quick_check failed" when it has none).
  std::string message;
  // kError because SQLite could not open or make a file beside the database
  // (a read-only connection without the WAL's -shm file in a folder it may
  // not write), as opposed to a lock held or an I/O error.
  bool cannot_open_beside = false;
};
// Never throws: every outcome is a value the caller words.
QuickCheck quick_check(const Connection& db);

class Statement {
 public:
  // Prepares `sql` (one statement). FatalError for a syntax error or a
  // missing table.
  Statement(const Connection& db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& text(int i, std::string_view s);
  Statement& int64(int i, int64_t v);
  Statement& real(int i, double v);
  Statement& null(int i);
  Statement& opt_int64(int i, std::optional<int64_t> v) { return v ? int64(i, *v) : null(i); }
  Statement& opt_real(int i, std::optional<double> v) { return v ? real(i, *v) : null(i); }

  // Steps once; true when a row is available.
  bool row();
  // Steps to completion, discarding rows.
  void run();
  // Back to the start with every bind cleared, to run again.
  void reset();

  bool is_null(int col) const;
  std::string col_text(int col) const;  // "" for NULL
  int64_t col_int64(int col) const;
  double col_real(int col) const;
  std::optional<int64_t> col_opt_int64(int col) const;
  std::optional<double> col_opt_real(int col) const;
  // A REAL that is NULL reads as NaN (SQLite stores NaN as NULL).
  double col_real_or_nan(int col) const;
  // A TEXT column of JSON; null for "" or NULL. FatalError naming `what`
  // when it does not parse.
  nlohmann::json col_json(int col, std::string_view what) const;

 private:
  void check(int rc) const;
  const Connection& db_;
  sqlite3_stmt* st_ = nullptr;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit()
// ran (so an exception between them undoes the writes).
class Transaction {
 public:
  explicit Transaction(const Connection& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  const Connection& db_;
  bool done_ = false;
};

}  // namespace mudjack::store
