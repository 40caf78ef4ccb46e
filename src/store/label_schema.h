#pragma once
// The label store's tables, in SQL that SQLite and PostgreSQL both run (SQLite reads
// BIGINT as INTEGER and DOUBLE PRECISION as REAL, 8-byte IEEE, so scores keep their bits).
#include "store/sql_database.h"

namespace sift::store {

// 1: runs, members, labels. 2: members.profile and members.margin, the reviews table, and
// the indexes `sift review` pages with.
inline constexpr int kLabelStoreSchemaVersion = 2;

// Creates the tables that are missing and records the schema version; a version-1 store is
// upgraded in place (its rows kept); a store of an unknown version is an Error.
void create_label_schema(SqlDatabase& db);
// The schema version of the label store db holds (1 or 2); an Error when it holds none.
int check_label_schema(SqlDatabase& db);

}  // namespace sift::store
