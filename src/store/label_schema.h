#pragma once
// The label store's tables, in SQL that SQLite and PostgreSQL both run (SQLite reads
// BIGINT as INTEGER and DOUBLE PRECISION as REAL, 8-byte IEEE, so scores keep their bits).
#include "store/sql_database.h"

namespace sift::store {

inline constexpr int kLabelStoreSchemaVersion = 1;

// Creates the tables that are missing and records the schema version; an existing store of
// another schema version is an Error.
void create_label_schema(SqlDatabase& db);
// An Error unless db holds a label store of this schema version.
void check_label_schema(SqlDatabase& db);

}  // namespace sift::store
