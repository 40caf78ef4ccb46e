// SqlDatabase over PostgreSQL (Debian's libpq), for a store that several machines write to.
// Parameters go as text ($1, $2, ... numbered from the shared `?` statements); reals as their
// shortest round-trip decimal, which PostgreSQL (12+) also prints back, so a score comes
// back with the same bits. Queries stream in single-row mode.
#include <libpq-fe.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>

#include <fmt/format.h>

#include "core/error.h"
#include "store/sql_database.h"

namespace sift::store {

namespace {

// Any id will do as long as every sift process uses the same one.
constexpr int64_t kSchemaLockId = 0x51f7'1abe'1000;
// lock_key's advisory locks are (kKeyLockClass, hashtext(key)): a space of their own, apart
// from kSchemaLockId's and from other programs' single-number locks.
constexpr int64_t kKeyLockClass = 0x51f7;
// SQLSTATE lock_not_available: lock_timeout ran out.
constexpr std::string_view kLockNotAvailable = "55P03";

// Type oids (pg_type.h) read back as numbers; everything else is text.
constexpr Oid kInt8 = 20, kInt2 = 21, kInt4 = 23, kFloat4 = 700, kFloat8 = 701;

std::string redact_password(const std::string& uri) {
  static const std::regex in_authority(R"((://[^:/@?]*):[^@/?]*@)");
  static const std::regex in_query(R"(([?&]password=)[^&]*)");
  return std::regex_replace(std::regex_replace(uri, in_authority, "$1:***@"), in_query, "$1***");
}

std::string first_line(const char* message) {
  std::string text = message ? message : "";
  text = text.substr(0, text.find('\n'));
  return text.empty() ? "unknown error" : text;
}

// "... WHERE a = ? AND b = ?" -> "... WHERE a = $1 AND b = $2" (not inside '...' literals).
std::string number_placeholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  bool in_literal = false;
  int n = 0;
  for (char c : sql) {
    if (c == '\'') in_literal = !in_literal;
    if (c == '?' && !in_literal) out += fmt::format("${}", ++n);
    else out.push_back(c);
  }
  return out;
}

class PostgresDatabase final : public SqlDatabase {
 public:
  PostgresDatabase(const std::string& uri, DatabaseAccess access) : where_(redact_password(uri)) {
    conn_ = PQconnectdb(uri.c_str());
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      std::string message = conn_ ? first_line(PQerrorMessage(conn_)) : "out of memory";
      PQfinish(conn_);
      fail("{}: cannot connect to the PostgreSQL store: {}", where_, message);
    }
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);  // "already exists, skipping"
    if (PQsetClientEncoding(conn_, "UTF8") != 0) {
      PQfinish(conn_);
      fail("{}: the server does not accept client encoding UTF8", where_);
    }
    where_ = fmt::format("postgresql://{}@{}:{}/{}", PQuser(conn_), PQhost(conn_), PQport(conn_), PQdb(conn_));
    if (access != DatabaseAccess::read) return;
    try {
      execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", {});
    } catch (...) {
      PQfinish(conn_);
      throw;
    }
  }
  ~PostgresDatabase() override { PQfinish(conn_); }

  void execute(std::string_view sql, const std::vector<SqlValue>& params) override {
    Params p(params, where_);
    PGresult* result = PQexecParams(conn_, number_placeholders(sql).c_str(), p.count(), nullptr, p.values(), nullptr,
                                    nullptr, 0);
    const ExecStatusType status = PQresultStatus(result);
    const bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    std::string message = ok ? "" : first_line(result ? PQresultErrorMessage(result) : PQerrorMessage(conn_));
    const bool busy = !ok && is_lock_timeout(result);
    PQclear(result);
    if (!ok) fail_statement("statement failed", message, busy);
  }

  void query(std::string_view sql, const std::vector<SqlValue>& params, const RowFn& on_row) override {
    Params p(params, where_);
    if (!PQsendQueryParams(conn_, number_placeholders(sql).c_str(), p.count(), nullptr, p.values(), nullptr, nullptr,
                           0))
      fail("{}: cannot send a query: {}", where_, first_line(PQerrorMessage(conn_)));
    PQsetSingleRowMode(conn_);
    std::string error;
    bool busy = false;
    std::exception_ptr callback_error;
    while (PGresult* result = PQgetResult(conn_)) {
      const ExecStatusType status = PQresultStatus(result);
      if (status == PGRES_SINGLE_TUPLE && !callback_error && error.empty()) {
        try {
          on_row(row_of(result));
        } catch (...) {
          callback_error = std::current_exception();  // drain the rest, then rethrow
        }
      } else if (status != PGRES_SINGLE_TUPLE && status != PGRES_TUPLES_OK && error.empty()) {
        error = first_line(PQresultErrorMessage(result));
        busy = is_lock_timeout(result);
      }
      PQclear(result);
    }
    if (callback_error) std::rethrow_exception(callback_error);
    if (!error.empty()) fail_statement("query failed", error, busy);
  }

  void begin(TransactionKind kind) override {
    execute("BEGIN", {});
    if (kind == TransactionKind::schema) execute("SELECT pg_advisory_xact_lock(?)", {kSchemaLockId});
  }
  void commit() override { execute("COMMIT", {}); }
  void rollback() override { PQclear(PQexec(conn_, "ROLLBACK")); }
  void lock_key(std::string_view key) override {
    execute("SELECT pg_advisory_xact_lock(?, hashtext(?))", {kKeyLockClass, std::string(key)});
  }
  void set_lock_wait(std::chrono::milliseconds wait) override {
    execute(fmt::format("SET lock_timeout = {}", std::max<int64_t>(wait.count(), 1)), {});
  }
  const std::string& where() const override { return where_; }
  std::string_view byte_order_collation() const override { return "COLLATE \"C\""; }
  bool has_table(std::string_view name) override {
    bool found = false;
    query("SELECT to_regclass(?) IS NOT NULL", {std::string(name)},
          [&](const SqlRow& row) { found = as_text(row[0], "to_regclass") == "t"; });
    return found;
  }

 private:
  // Text forms of the parameters, alive for one call.
  class Params {
   public:
    Params(const std::vector<SqlValue>& params, const std::string& where) {
      texts_.reserve(params.size());
      for (const SqlValue& value : params) {
        if (std::holds_alternative<std::nullptr_t>(value)) {
          texts_.emplace_back();
          is_null_.push_back(true);
          continue;
        }
        is_null_.push_back(false);
        if (const int64_t* integer = std::get_if<int64_t>(&value)) texts_.push_back(std::to_string(*integer));
        else if (const double* real = std::get_if<double>(&value)) {
          if (!std::isfinite(*real)) fail("{}: cannot store the non-finite number {}", where, *real);
          texts_.push_back(fmt::format("{}", *real));
        } else {
          const std::string& text = std::get<std::string>(value);
          if (text.find('\0') != std::string::npos) fail("{}: cannot store text holding a NUL byte", where);
          texts_.push_back(text);
        }
      }
      for (size_t i = 0; i < texts_.size(); ++i) pointers_.push_back(is_null_[i] ? nullptr : texts_[i].c_str());
    }
    int count() const { return int(pointers_.size()); }
    const char* const* values() const { return pointers_.data(); }

   private:
    std::vector<std::string> texts_;
    std::vector<bool> is_null_;
    std::vector<const char*> pointers_;
  };

  static bool is_lock_timeout(const PGresult* result) {
    const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    return state && kLockNotAvailable == state;
  }

  // A lock wait that ran out (lock_timeout) is StoreBusy.
  [[noreturn]] void fail_statement(std::string_view what, const std::string& message, bool busy) const {
    std::string text = fmt::format("{}: {}: {}", where_, what, message);
    if (busy) throw StoreBusy(text);
    throw Error(text);
  }

  static SqlRow row_of(const PGresult* result) {
    const int n_columns = PQnfields(result);
    SqlRow row(static_cast<size_t>(n_columns));
    for (int i = 0; i < n_columns; ++i) {
      if (PQgetisnull(result, 0, i)) {
        row[size_t(i)] = nullptr;
        continue;
      }
      const char* text = PQgetvalue(result, 0, i);
      const Oid type = PQftype(result, i);
      if (type == kInt8 || type == kInt2 || type == kInt4) row[size_t(i)] = int64_t(std::strtoll(text, nullptr, 10));
      else if (type == kFloat8 || type == kFloat4) row[size_t(i)] = std::strtod(text, nullptr);
      else row[size_t(i)] = std::string(text, size_t(PQgetlength(result, 0, i)));
    }
    return row;
  }

  std::string where_;
  PGconn* conn_ = nullptr;
};

}  // namespace

std::unique_ptr<SqlDatabase> open_postgres_database(const std::string& uri, DatabaseAccess access) {
  return std::make_unique<PostgresDatabase>(uri, access);
}

}  // namespace sift::store
