#include "store/label_schema.h"

#include <optional>
#include <string>

#include "core/error.h"

namespace sift::store {

namespace {

constexpr const char* kTables[] = {
    "CREATE TABLE IF NOT EXISTS store_info ("
    " key TEXT PRIMARY KEY,"
    " value TEXT NOT NULL)",

    "CREATE TABLE IF NOT EXISTS runs ("
    " run_id TEXT PRIMARY KEY,"
    " started_at TEXT NOT NULL,"
    " finished_at TEXT,"  // NULL while running, and forever for a killed run
    " artifact_version TEXT NOT NULL,"
    " artifact_fingerprint TEXT NOT NULL,"
    " threshold DOUBLE PRECISION NOT NULL,"
    " options TEXT NOT NULL,"
    " profiles BIGINT, judged BIGINT, skipped_unchanged BIGINT, errors BIGINT,"
    " rounds BIGINT, pairs_judged BIGINT, accepted BIGINT)",

    "CREATE TABLE IF NOT EXISTS members ("
    " member TEXT PRIMARY KEY,"
    " input_hash TEXT NOT NULL,"
    " artifact_version TEXT NOT NULL,"
    " threshold DOUBLE PRECISION NOT NULL,"
    " rounds BIGINT NOT NULL,"
    " stop_reason TEXT NOT NULL,"
    " run_id TEXT NOT NULL,"
    " labeled_at TEXT NOT NULL)",

    "CREATE TABLE IF NOT EXISTS labels ("
    " member TEXT NOT NULL,"
    " qualification TEXT NOT NULL,"
    " name TEXT NOT NULL,"
    " score DOUBLE PRECISION NOT NULL,"
    " label SMALLINT NOT NULL,"
    " round BIGINT NOT NULL,"
    " rank BIGINT NOT NULL,"
    " artifact_version TEXT NOT NULL,"
    " threshold DOUBLE PRECISION NOT NULL,"
    " run_id TEXT NOT NULL,"
    " labeled_at TEXT NOT NULL,"
    " PRIMARY KEY (member, qualification))",

    // "Who holds qualification q": the accepted rows only.
    "CREATE INDEX IF NOT EXISTS labels_accepted ON labels (qualification, member) WHERE label = 1",
};

std::optional<std::string> stored_schema_version(SqlDatabase& db) {
  std::optional<std::string> version;
  db.query("SELECT value FROM store_info WHERE key = 'schema_version'", {},
           [&](const SqlRow& row) { version = as_text(row[0], "store_info.value"); });
  return version;
}

void require_version(SqlDatabase& db, const std::optional<std::string>& version) {
  if (!version) fail("{}: not a sift label store (store_info has no schema_version)", db.where());
  if (*version != std::to_string(kLabelStoreSchemaVersion))
    fail("{}: label store schema version {}, this sift reads version {}", db.where(), *version,
         kLabelStoreSchemaVersion);
}

}  // namespace

void create_label_schema(SqlDatabase& db) {
  SqlTransaction transaction(db, TransactionKind::schema);
  for (const char* statement : kTables) db.execute(statement);
  std::optional<std::string> version = stored_schema_version(db);
  if (!version) {
    db.execute("INSERT INTO store_info (key, value) VALUES ('schema_version', ?)",
               {std::to_string(kLabelStoreSchemaVersion)});
    version = std::to_string(kLabelStoreSchemaVersion);
  }
  require_version(db, version);
  transaction.commit();
}

void check_label_schema(SqlDatabase& db) {
  if (!db.has_table("store_info")) fail("{}: not a sift label store (no store_info table)", db.where());
  require_version(db, stored_schema_version(db));
}

}  // namespace sift::store
