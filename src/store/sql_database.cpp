#include "store/sql_database.h"

#include "core/error.h"

namespace sift::store {

bool is_postgres_location(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

std::unique_ptr<SqlDatabase> open_sql_database(const std::string& location, DatabaseAccess access) {
  if (location.empty()) fail("--store: a SQLite file path or a postgresql:// URI is required");
  if (is_postgres_location(location)) return open_postgres_database(location, access);
  return open_sqlite_database(location, access);
}

namespace {

const char* type_name(const SqlValue& value) {
  constexpr const char* kNames[] = {"NULL", "an integer", "a real", "text"};
  return kNames[value.index()];
}

template <typename T>
const T& typed(const SqlValue& value, std::string_view column, const char* wanted) {
  const T* typed_value = std::get_if<T>(&value);
  if (!typed_value) fail("store column {}: expected {}, got {}", column, wanted, type_name(value));
  return *typed_value;
}

}  // namespace

int64_t as_int(const SqlValue& value, std::string_view column) { return typed<int64_t>(value, column, "an integer"); }

double as_double(const SqlValue& value, std::string_view column) {
  if (const int64_t* integer = std::get_if<int64_t>(&value)) return double(*integer);  // SQLite stores 1.0 as 1
  return typed<double>(value, column, "a real");
}

const std::string& as_text(const SqlValue& value, std::string_view column) {
  return typed<std::string>(value, column, "text");
}

bool is_null(const SqlValue& value) { return std::holds_alternative<std::nullptr_t>(value); }

}  // namespace sift::store
