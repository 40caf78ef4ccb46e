#include "store/label_store.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "store/label_schema.h"

namespace sift::store {

namespace {

// Rows per multi-row INSERT and ids per IN (...) list: well under both engines' limits on
// bound parameters (SQLite 32766, PostgreSQL 65535), and few distinct statement texts.
constexpr size_t kRowsPerStatement = 64;

constexpr const char* kLabelColumns =
    "member, qualification, name, score, label, round, rank, artifact_version, threshold, run_id, labeled_at";
constexpr size_t kLabelColumnCount = 11;

// "(?, ?, ?), (?, ?, ?)" for n_rows rows of n_columns.
std::string placeholders(size_t n_rows, size_t n_columns) {
  std::string row = "(";
  for (size_t c = 0; c < n_columns; ++c) row += c ? ", ?" : "?";
  row += ")";
  std::string all;
  for (size_t r = 0; r < n_rows; ++r) all += (r ? ", " : "") + row;
  return all;
}

Judgment judgment_of(const SqlRow& row, size_t first) {
  Judgment j;
  j.qualification = as_text(row[first], "labels.qualification");
  j.name = as_text(row[first + 1], "labels.name");
  j.score = as_double(row[first + 2], "labels.score");
  j.label = as_int(row[first + 3], "labels.label") != 0;
  j.round = as_int(row[first + 4], "labels.round");
  j.rank = as_int(row[first + 5], "labels.rank");
  return j;
}

}  // namespace

std::unique_ptr<LabelStore> LabelStore::open(const std::string& location, Access access) {
  if (access == Access::read) {
    std::unique_ptr<SqlDatabase> db = open_sql_database(location, DatabaseAccess::read);
    const int version = check_label_schema(*db);
    return std::make_unique<LabelStore>(std::move(db), version);
  }
  std::unique_ptr<SqlDatabase> db = open_sql_database(location, DatabaseAccess::write);
  create_label_schema(*db);
  return std::make_unique<LabelStore>(std::move(db), kLabelStoreSchemaVersion);
}

void LabelStore::begin_run(const RunStart& run) {
  db_->execute(
      "INSERT INTO runs (run_id, started_at, artifact_version, artifact_fingerprint, threshold, options) "
      "VALUES (?, ?, ?, ?, ?, ?)",
      {run.run_id, run.started_at, run.artifact_version, run.artifact_fingerprint, run.threshold, run.options_json});
}

void LabelStore::finish_run(const std::string& run_id, const std::string& finished_at, const RunCounts& c) {
  db_->execute(
      "UPDATE runs SET finished_at = ?, profiles = ?, judged = ?, skipped_unchanged = ?, errors = ?, rounds = ?, "
      "pairs_judged = ?, accepted = ? WHERE run_id = ?",
      {finished_at, c.profiles, c.judged, c.skipped_unchanged, c.errors, c.rounds, c.pairs_judged, c.accepted,
       run_id});
}

std::optional<std::string> LabelStore::other_fingerprint(const std::string& artifact_version,
                                                         const std::string& fingerprint) {
  std::optional<std::string> other;
  db_->query("SELECT artifact_fingerprint FROM runs WHERE artifact_version = ? AND artifact_fingerprint <> ? "
             "ORDER BY started_at DESC LIMIT 1",
             {artifact_version, fingerprint},
             [&](const SqlRow& row) { other = as_text(row[0], "runs.artifact_fingerprint"); });
  return other;
}

std::unordered_map<std::string, MemberState> LabelStore::member_states(const std::vector<std::string>& members) {
  std::unordered_map<std::string, MemberState> states;
  for (size_t begin = 0; begin < members.size(); begin += kRowsPerStatement) {
    const size_t end = std::min(members.size(), begin + kRowsPerStatement);
    std::vector<SqlValue> ids(members.begin() + std::ptrdiff_t(begin), members.begin() + std::ptrdiff_t(end));
    db_->query(fmt::format("SELECT member, input_hash, artifact_version, threshold FROM members WHERE member IN {}",
                           placeholders(1, ids.size())),
               ids, [&](const SqlRow& row) {
                 states[as_text(row[0], "members.member")] = {as_text(row[1], "members.input_hash"),
                                                              as_text(row[2], "members.artifact_version"),
                                                              as_double(row[3], "members.threshold")};
               });
  }
  return states;
}

void LabelStore::replace_member(const MemberLabels& m) {
  SqlTransaction transaction(*db_, TransactionKind::write);
  // Two runs replacing the same member at once take turns: without the lock both would
  // delete nothing and then insert the same keys.
  db_->lock_key(m.member);
  db_->execute("DELETE FROM labels WHERE member = ?", {m.member});
  for (size_t begin = 0; begin < m.judgments.size(); begin += kRowsPerStatement) {
    const size_t end = std::min(m.judgments.size(), begin + kRowsPerStatement);
    std::vector<SqlValue> values;
    values.reserve((end - begin) * kLabelColumnCount);
    for (size_t i = begin; i < end; ++i) {
      const Judgment& j = m.judgments[i];
      for (SqlValue v : std::initializer_list<SqlValue>{m.member, j.qualification, j.name, j.score,
                                                         int64_t(j.label ? 1 : 0), j.round, j.rank,
                                                         m.artifact_version, m.threshold, m.run_id, m.labeled_at})
        values.push_back(std::move(v));
    }
    db_->execute(fmt::format("INSERT INTO labels ({}) VALUES {}", kLabelColumns,
                             placeholders(end - begin, kLabelColumnCount)),
                 values);
  }
  double margin = 1;  // min |score - threshold|: how near the threshold its most uncertain label is
  for (const Judgment& j : m.judgments) margin = std::min(margin, std::abs(j.score - m.threshold));
  const SqlValue profile = m.profile ? SqlValue(*m.profile) : SqlValue(nullptr);
  db_->execute(
      "INSERT INTO members (member, input_hash, artifact_version, threshold, rounds, stop_reason, run_id, labeled_at, "
      "profile, margin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (member) DO UPDATE SET "
      "input_hash = excluded.input_hash, artifact_version = excluded.artifact_version, threshold = excluded.threshold, "
      "rounds = excluded.rounds, stop_reason = excluded.stop_reason, run_id = excluded.run_id, "
      "labeled_at = excluded.labeled_at, profile = excluded.profile, margin = excluded.margin",
      {m.member, m.input_hash, m.artifact_version, m.threshold, m.rounds, m.stop_reason, m.run_id, m.labeled_at,
       profile, margin});
  transaction.commit();
}

std::optional<MemberLabels> LabelStore::member(const std::string& member) {
  std::optional<MemberLabels> found;
  // A version-1 store (read, not upgraded) has no profile column.
  const char* profile_column = schema_version_ >= 2 ? "profile" : "NULL";
  db_->query(fmt::format("SELECT input_hash, artifact_version, threshold, rounds, stop_reason, run_id, labeled_at, {} "
                         "FROM members WHERE member = ?",
                         profile_column),
             {member}, [&](const SqlRow& row) {
               MemberLabels m;
               m.member = member;
               m.input_hash = as_text(row[0], "members.input_hash");
               m.artifact_version = as_text(row[1], "members.artifact_version");
               m.threshold = as_double(row[2], "members.threshold");
               m.rounds = as_int(row[3], "members.rounds");
               m.stop_reason = as_text(row[4], "members.stop_reason");
               m.run_id = as_text(row[5], "members.run_id");
               m.labeled_at = as_text(row[6], "members.labeled_at");
               if (!is_null(row[7])) m.profile = as_text(row[7], "members.profile");
               found = std::move(m);
             });
  if (!found) return found;
  db_->query("SELECT qualification, name, score, label, round, rank FROM labels WHERE member = ? ORDER BY rank",
             {member}, [&](const SqlRow& row) { found->judgments.push_back(judgment_of(row, 0)); });
  return found;
}

void LabelStore::for_each_judgment(const std::function<void(const StoredJudgment&)>& fn) {
  db_->query(fmt::format("SELECT member, qualification, name, score, label, round, rank, artifact_version, threshold, "
                         "run_id, labeled_at FROM labels ORDER BY member {}, rank",
                         db_->byte_order_collation()),
             {}, [&](const SqlRow& row) {
               StoredJudgment s;
               s.member = as_text(row[0], "labels.member");
               s.judgment = judgment_of(row, 1);
               s.artifact_version = as_text(row[7], "labels.artifact_version");
               s.threshold = as_double(row[8], "labels.threshold");
               s.run_id = as_text(row[9], "labels.run_id");
               s.labeled_at = as_text(row[10], "labels.labeled_at");
               fn(s);
             });
}

void LabelStore::for_each_member(const std::function<void(const MemberLabels&)>& fn) {
  const char* profile_column = schema_version_ >= 2 ? "m.profile" : "NULL";
  MemberLabels current;
  bool any = false;
  db_->query(fmt::format("SELECT l.member, m.artifact_version, m.threshold, m.run_id, {}, l.qualification, l.name, "
                         "l.score, l.label, l.round, l.rank FROM labels l JOIN members m ON m.member = l.member "
                         "ORDER BY l.member {}, l.rank",
                         profile_column, db_->byte_order_collation()),
             {}, [&](const SqlRow& row) {
               std::string member = as_text(row[0], "labels.member");
               if (!any || member != current.member) {
                 if (any) fn(current);
                 any = true;
                 current = MemberLabels();
                 current.member = std::move(member);
                 current.artifact_version = as_text(row[1], "members.artifact_version");
                 current.threshold = as_double(row[2], "members.threshold");
                 current.run_id = as_text(row[3], "members.run_id");
                 if (!is_null(row[4])) current.profile = as_text(row[4], "members.profile");
               }
               current.judgments.push_back(judgment_of(row, 5));
             });
  if (any) fn(current);
}

}  // namespace sift::store
