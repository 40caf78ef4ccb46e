// SqlDatabase over a SQLite file (Debian's libsqlite3). WAL journal: readers (sift labels)
// never block the writer; synchronous=NORMAL: a commit survives a killed process (a power
// cut may lose the last commits, never leave half of one). Statements are prepared once
// and cached by their text.
#include <sqlite3.h>

#include <filesystem>
#include <unordered_map>

#include "core/error.h"
#include "store/sql_database.h"

namespace sift::store {

namespace {

constexpr int kBusyTimeoutMs = 60'000;  // another writer (a second process) holds the lock

class SqliteDatabase final : public SqlDatabase {
 public:
  SqliteDatabase(const std::string& path, OpenMode mode) : where_(path) {
    if (mode != OpenMode::create && !std::filesystem::exists(path)) fail("{}: no such label store", path);
    const int access = mode == OpenMode::read_only ? SQLITE_OPEN_READONLY
                       : mode == OpenMode::write   ? SQLITE_OPEN_READWRITE
                                                   : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    const int flags = access | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
      std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close_v2(db_);
      fail("{}: cannot open the SQLite store: {}", path, message);
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    try {
      if (mode != OpenMode::read_only) {  // a store sift wrote is in WAL mode already
        execute("PRAGMA journal_mode=WAL", {});  // returns a row, which execute() steps past
        execute("PRAGMA synchronous=NORMAL", {});
      }
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
  const std::string& where() const override { return where_; }
  std::string_view byte_order_collation() const override { return "COLLATE BINARY"; }
  bool has_table(std::string_view name) override {
    bool found = false;
    query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", {std::string(name)},
          [&](const SqlRow&) { found = true; });
    return found;
  }

 private:
  void close() {
    for (auto& [sql, statement] : statements_) sqlite3_finalize(statement);
    statements_.clear();
    sqlite3_close_v2(db_);
    db_ = nullptr;
  }

  [[noreturn]] void fail_here(std::string_view what) const { fail("{}: {}: {}", where_, what, sqlite3_errmsg(db_)); }

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

std::unique_ptr<SqlDatabase> open_sqlite_database(const std::string& path, OpenMode mode) {
  return std::make_unique<SqliteDatabase>(path, mode);
}

}  // namespace sift::store
