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
    " labeled_at TEXT NOT NULL,"
    " profile TEXT,"  // the text judged (NULL: stored by a sift before reviews)
    // min |score - threshold| over its labels: how near the threshold its most uncertain
    // label is (1, the most there can be, for a member with no labels)
    " margin DOUBLE PRECISION NOT NULL DEFAULT 1)",

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

// Version 2: what `sift review` reads and writes. Run after kTables on a new store, and on a
// version-1 store after adding the members columns (kUpgradeFrom1).
constexpr const char* kReviewTables[] = {
    // One verdict per reviewer per pair (a later verdict of the same reviewer replaces it),
    // with what the reviewer saw; the labels row itself is never changed.
    "CREATE TABLE IF NOT EXISTS reviews ("
    " member TEXT NOT NULL,"
    " qualification TEXT NOT NULL,"
    " reviewer TEXT NOT NULL,"
    " verdict TEXT NOT NULL CHECK (verdict IN ('right', 'wrong')),"  // the stored label is right / wrong
    " name TEXT NOT NULL,"
    " score DOUBLE PRECISION NOT NULL,"
    " label SMALLINT NOT NULL,"
    " threshold DOUBLE PRECISION NOT NULL,"
    " artifact_version TEXT NOT NULL,"
    " input_hash TEXT NOT NULL,"  // the member's input when reviewed (a changed profile makes it stale)
    " reviewed_at TEXT NOT NULL,"
    " PRIMARY KEY (member, qualification, reviewer))",
    // Members by uncertainty (paged), pairs by uncertainty (the review queue), and the pairs a
    // threshold flips (label = 1 below it, label = 0 at or above it): range scans, not table scans.
    "CREATE INDEX IF NOT EXISTS members_margin ON members (margin, member)",
    "CREATE INDEX IF NOT EXISTS labels_margin ON labels ((ABS(score - threshold)))",
    "CREATE INDEX IF NOT EXISTS labels_flip ON labels (label, score)",
};

// A version-1 store becomes version 2: the members columns, filled from the labels it holds
// (its profile texts were never stored: NULL).
constexpr const char* kUpgradeFrom1[] = {
    "ALTER TABLE members ADD COLUMN profile TEXT",
    "ALTER TABLE members ADD COLUMN margin DOUBLE PRECISION NOT NULL DEFAULT 1",
    "UPDATE members SET margin = COALESCE((SELECT MIN(ABS(labels.score - labels.threshold)) FROM labels "
    "WHERE labels.member = members.member), 1)",
};

std::optional<std::string> stored_schema_version(SqlDatabase& db) {
  std::optional<std::string> version;
  db.query("SELECT value FROM store_info WHERE key = 'schema_version'", {},
           [&](const SqlRow& row) { version = as_text(row[0], "store_info.value"); });
  return version;
}

// The store's schema version, one this sift reads (1 or 2).
int require_version(SqlDatabase& db, const std::optional<std::string>& version) {
  if (!version) fail("{}: not a sift label store (store_info has no schema_version)", db.where());
  for (int known = 1; known <= kLabelStoreSchemaVersion; ++known)
    if (*version == std::to_string(known)) return known;
  fail("{}: label store schema version {}, this sift reads versions 1 to {}", db.where(), *version,
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
  if (require_version(db, version) == 1) {
    for (const char* statement : kUpgradeFrom1) db.execute(statement);
    db.execute("UPDATE store_info SET value = ? WHERE key = 'schema_version'",
               {std::to_string(kLabelStoreSchemaVersion)});
  }
  for (const char* statement : kReviewTables) db.execute(statement);
  transaction.commit();
}

int check_label_schema(SqlDatabase& db) {
  if (!db.has_table("store_info")) fail("{}: not a sift label store (no store_info table)", db.where());
  return require_version(db, stored_schema_version(db));
}

}  // namespace sift::store
