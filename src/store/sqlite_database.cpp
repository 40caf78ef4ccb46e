// SqlDatabase over a SQLite file (Debian's libsqlite3). WAL journal: readers (sift labels)
// never block the writer; synchronous=NORMAL: a commit survives a killed process (a power
// cut may lose the last commits, never leave half of one). Statements are prepared once
// and cached by their text.
//
// Reading (DatabaseAccess::read) opens the file read-only and changes nothing, so a store
// the user may not write is read. A WAL store needs its shared-memory index "<file>-shm"
// beside it, which the first reader creates; in a folder the reader may not write, with no
// "<file>-wal" there (no writer has the store open: the last one to close folded its log
// into the file), the file is read as immutable (SQLite's immutable=1: no index, no locks).
// That reading assumes no writer opens the store meanwhile, which the folder's permissions
// say the reader cannot do; a writer of another user could, and would not be seen.
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <unordered_map>

#include "core/error.h"
#include "store/sql_database.h"

namespace sift::store {

namespace {

constexpr int kBusyTimeoutMs = 60'000;  // another writer (a second process) holds the lock (set_lock_wait)

// "file:<path>?immutable=1", the path percent-encoded (SQLite's URI filenames).
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (const unsigned char c : path)
    uri += std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~' ? std::string(1, char(c))
                                                                                         : fmt::format("%{:02X}", c);
  return uri + "?immutable=1";
}

class SqliteDatabase final : public SqlDatabase {
 public:
  SqliteDatabase(const std::string& path, DatabaseAccess access) : where_(path) {
    struct stat info {};
    const bool exists = ::stat(path.c_str(), &info) == 0;
    if (exists && !S_ISREG(info.st_mode))
      fail("{}: is not a regular file; a label store is a SQLite database file (SQLite writes its journal beside it)",
           path);
    if (access == DatabaseAccess::read) {
      if (!exists) fail("{}: no such label store", path);
      open_for_reading(path);
      return;
    }
    open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    try {
      execute("PRAGMA journal_mode=WAL", {});  // returns a row, which execute() steps past
      execute("PRAGMA synchronous=NORMAL", {});
    } catch (...) {
      close();
      throw;
    }
  }
  ~SqliteDatabase() override { close(); }

  void execute(std::string_view sql, const std::vector<SqlValue>& params) override { run(sql, params, nullptr); }
  void query(std::string_view sql, const std::vector<SqlValue>& params, const RowFn& on_row) override {
    run(sql, params, &on_row);
  }
  void begin(TransactionKind) override { execute("BEGIN IMMEDIATE", {}); }
  void commit() override { execute("COMMIT", {}); }
  void rollback() override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }
  void lock_key(std::string_view) override {}  // BEGIN IMMEDIATE took the one write lock
  void set_lock_wait(std::chrono::milliseconds wait) override {
    sqlite3_busy_timeout(db_, int(std::clamp<int64_t>(wait.count(), 0, INT32_MAX)));
  }
  const std::string& where() const override { return where_; }
  std::string_view byte_order_collation() const override { return "COLLATE BINARY"; }
  bool has_table(std::string_view name) override {
    bool found = false;
    query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", {std::string(name)},
          [&](const SqlRow&) { found = true; });
    return found;
  }

 private:
  void open(const std::string& name, int flags) {
    if (sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
      std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close_v2(db_);
      db_ = nullptr;
      fail("{}: cannot open the SQLite store: {}", where_, message);
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  }

  // Read-only; immutable when the WAL index cannot be made and no writer is there (see the top).
  void open_for_reading(const std::string& path) {
    open(path, SQLITE_OPEN_READONLY);
    const int rc = sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    const int primary = rc & 0xff;
    const bool no_index = primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN;
    const std::string message = sqlite3_errmsg(db_);
    close();
    if (!no_index || std::filesystem::exists(path + "-wal"))
      fail("{}: cannot read the SQLite store: {}", where_, message);
    open(immutable_uri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  }

  void close() {
    for (auto& [sql, statement] : statements_) sqlite3_finalize(statement);
    statements_.clear();
    sqlite3_close_v2(db_);
    db_ = nullptr;
  }

  // SQLITE_BUSY (the busy timeout ran out: another connection holds the lock) is StoreBusy.
  [[noreturn]] void fail_here(std::string_view what) const {
    const std::string message = fmt::format("{}: {}: {}", where_, what, sqlite3_errmsg(db_));
    if ((sqlite3_errcode(db_) & 0xff) == SQLITE_BUSY) throw StoreBusy(message);
    throw Error(message);
  }

  sqlite3_stmt* prepared(std::string_view sql) {
    auto it = statements_.find(std::string(sql));
    if (it != statements_.end()) return it->second;
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.data(), int(sql.size()), &statement, nullptr) != SQLITE_OK)
      fail_here("cannot prepare a statement");
    statements_.emplace(std::string(sql), statement);
    return statement;
  }

  void bind(sqlite3_stmt* statement, const std::vector<SqlValue>& params) {
    if (int(params.size()) != sqlite3_bind_parameter_count(statement))
      fail("{}: statement takes {} parameters, {} given", where_, sqlite3_bind_parameter_count(statement),
           params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      const int slot = int(i) + 1;
      const SqlValue& value = params[i];
      int rc = SQLITE_OK;
      if (std::holds_alternative<std::nullptr_t>(value)) rc = sqlite3_bind_null(statement, slot);
      else if (const int64_t* integer = std::get_if<int64_t>(&value)) rc = sqlite3_bind_int64(statement, slot, *integer);
      else if (const double* real = std::get_if<double>(&value)) rc = sqlite3_bind_double(statement, slot, *real);
      else {
        const std::string& text = std::get<std::string>(value);
        rc = sqlite3_bind_text64(statement, slot, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
      }
      if (rc != SQLITE_OK) fail_here("cannot bind a parameter");
    }
  }

  static SqlValue column(sqlite3_stmt* statement, int i) {
    switch (sqlite3_column_type(statement, i)) {
      case SQLITE_INTEGER: return int64_t(sqlite3_column_int64(statement, i));
      case SQLITE_FLOAT: return sqlite3_column_double(statement, i);
      case SQLITE_NULL: return nullptr;
      default: {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, i));
        return std::string(text ? text : "", size_t(sqlite3_column_bytes(statement, i)));
      }
    }
  }

  void run(std::string_view sql, const std::vector<SqlValue>& params, const RowFn* on_row) {
    sqlite3_stmt* statement = prepared(sql);
    struct Reset {  // leaves the cached statement reusable whatever happens
      sqlite3_stmt* s;
      ~Reset() {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
      }
    } reset{statement};
    bind(statement, params);
    const int n_columns = sqlite3_column_count(statement);
    SqlRow row(static_cast<size_t>(n_columns));
    for (;;) {
      const int rc = sqlite3_step(statement);
      if (rc == SQLITE_DONE) return;
      if (rc != SQLITE_ROW) fail_here("statement failed");
      if (!on_row) continue;
      for (int i = 0; i < n_columns; ++i) row[size_t(i)] = column(statement, i);
      (*on_row)(row);
    }
  }

  std::string where_;
  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

}  // namespace

std::unique_ptr<SqlDatabase> open_sqlite_database(const std::string& path, DatabaseAccess access) {
  return std::make_unique<SqliteDatabase>(path, access);
}

}  // namespace sift::store
