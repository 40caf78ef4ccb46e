#pragma once
// The small SQL interface the label store is written against, with two backends, one file
// each: SQLite (a file path; sqlite_database.cpp) and PostgreSQL (a postgresql:// URI;
// postgres_database.cpp). Statements are written once, in the SQL both accept, with `?`
// placeholders bound in order (the PostgreSQL backend numbers them $1, $2, ...).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/error.h"

namespace sift::store {

using SqlValue = std::variant<std::nullptr_t, int64_t, double, std::string>;
using SqlRow = std::vector<SqlValue>;
using RowFn = std::function<void(const SqlRow&)>;

enum class TransactionKind {
  write,   // SQLite: BEGIN IMMEDIATE (takes the write lock now, so two writers never deadlock)
  schema,  // as write, plus (PostgreSQL) an advisory lock so concurrent first runs create tables once
};

// A statement waited its whole lock wait (SqlDatabase::set_lock_wait) for a lock another
// connection or process held, and gave up; nothing of it was applied.
class StoreBusy : public Error {
 public:
  using Error::Error;
};

class SqlDatabase {
 public:
  virtual ~SqlDatabase() = default;
  // Runs one statement with its `?` placeholders bound to params, in order.
  virtual void execute(std::string_view sql, const std::vector<SqlValue>& params = {}) = 0;
  // Runs a query and calls on_row for each result row, streaming (rows are not all held).
  virtual void query(std::string_view sql, const std::vector<SqlValue>& params, const RowFn& on_row) = 0;
  virtual void begin(TransactionKind kind) = 0;
  virtual void commit() = 0;
  virtual void rollback() = 0;  // never throws
  // Inside a write transaction: waits until no other transaction holds `key`, then holds it
  // until this one ends, so writers of the same key (a member) run one after the other.
  // PostgreSQL: a transaction-level advisory lock on the key's hash; SQLite: nothing to do,
  // its write transactions already run one at a time.
  virtual void lock_key(std::string_view key) = 0;
  // How long a statement waits for a lock another connection holds before it throws
  // StoreBusy. Until set: SQLite a minute, PostgreSQL as long as it takes.
  virtual void set_lock_wait(std::chrono::milliseconds wait) = 0;
  // The COLLATE clause that sorts text by its bytes (the same order in both dialects).
  virtual std::string_view byte_order_collation() const = 0;
  // Whether a table of this name is visible (each dialect keeps its own catalog).
  virtual bool has_table(std::string_view name) = 0;
  // What to name in messages: the file, or the URI without its password.
  virtual const std::string& where() const = 0;
};

enum class DatabaseAccess {
  write,  // a missing SQLite file is created (a missing PostgreSQL database is always an error)
  read,   // the database must exist; a SQLite file is opened read-only (sqlite_database.cpp), so
          // a store the user may only read (a shared file, a read-only folder) can be read
};

// Throws sift::Error naming the location. A SQLite path that is not a regular file (a
// directory, a device such as /dev/null, a FIFO) is refused: SQLite would write its journal
// beside it.
std::unique_ptr<SqlDatabase> open_sqlite_database(const std::string& path, DatabaseAccess access);
// DatabaseAccess::read: every transaction is read-only, so nothing can be written.
std::unique_ptr<SqlDatabase> open_postgres_database(const std::string& uri, DatabaseAccess access);
// postgresql://... or postgres://... opens PostgreSQL; anything else is a SQLite file path.
std::unique_ptr<SqlDatabase> open_sql_database(const std::string& location, DatabaseAccess access);
bool is_postgres_location(std::string_view location);

// Rolls back on scope exit unless commit() was called: an exception never leaves half a
// transaction applied.
class SqlTransaction {
 public:
  SqlTransaction(SqlDatabase& db, TransactionKind kind) : db_(db) { db_.begin(kind); }
  ~SqlTransaction() {
    if (!done_) db_.rollback();
  }
  SqlTransaction(const SqlTransaction&) = delete;
  SqlTransaction& operator=(const SqlTransaction&) = delete;
  void commit() {
    db_.commit();
    done_ = true;
  }

 private:
  SqlDatabase& db_;
  bool done_ = false;
};

// Typed reads of a result column; a NULL or another type is an Error naming `column`.
int64_t as_int(const SqlValue& value, std::string_view column);
double as_double(const SqlValue& value, std::string_view column);
const std::string& as_text(const SqlValue& value, std::string_view column);
bool is_null(const SqlValue& value);

}  // namespace sift::store
