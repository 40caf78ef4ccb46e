#pragma once
// The label store of `sift label`: what was judged for each member, by which labeler, in
// which run. One interface over SqlDatabase (SQLite file or PostgreSQL), the schema in
// label_schema.cpp (documented in docs/labeling.md, "Stores"):
//
//   runs    one row per `sift label` run: artifact version and fingerprint, threshold,
//           options (JSON), counts, started_at / finished_at (NULL: running or killed)
//   members one row per labeled member: the hash of the input it was judged from, the
//           artifact version, rounds, why the rounds stopped, run and time
//   labels  one row per judged (member, qualification), negatives too (label 0), so "not
//           labeled" and "judged NO" differ: score, label, round, rank, artifact version,
//           threshold, run and time
//   reviews a person's verdict on a labels row (review_store.h), never changing the row
//
// A member's rows are replaced in one transaction (replace_member): a crash leaves either
// the old rows or the new ones, never half of a profile; runs replacing the same member at
// once (several machines on one PostgreSQL store) take turns, the last one's rows stay.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/sql_database.h"

namespace sift::store {

struct Judgment {
  std::string qualification;  // catalog id
  std::string name;           // the candidate text the labeler saw
  double score = 0;           // P(yes)
  bool label = false;         // score >= threshold
  int64_t round = 0;          // 1-based
  int64_t rank = 0;           // 1-based place in the candidate ranking
};

// One labels row as exported: the judgment and what it was judged under.
struct StoredJudgment {
  std::string member;
  Judgment judgment;
  std::string artifact_version;
  double threshold = 0.5;
  std::string run_id;
  std::string labeled_at;
};

struct MemberLabels {
  std::string member;
  std::string input_hash;        // what the member was judged from (profile text, given candidates)
  std::string artifact_version;  // sift.json "version"
  double threshold = 0.5;
  int64_t rounds = 0;
  std::string stop_reason;       // below_threshold | max_rounds | exhausted
  std::string run_id;
  std::string labeled_at;        // ISO 8601 UTC
  std::optional<std::string> profile;  // the text judged (none: stored by a sift before reviews)
  std::vector<Judgment> judgments;  // in rank order
};

// What decides whether a member must be judged again.
struct MemberState {
  std::string input_hash;
  std::string artifact_version;
  double threshold = 0.5;
};

struct RunCounts {
  int64_t profiles = 0;           // valid profile rows of this shard
  int64_t judged = 0;             // profiles judged by the model
  int64_t skipped_unchanged = 0;  // profiles whose stored labels were current
  int64_t errors = 0;             // catalog and profile rows reported and left out
  int64_t rounds = 0;
  int64_t pairs_judged = 0;
  int64_t accepted = 0;
};

struct RunStart {
  std::string run_id;
  std::string started_at;
  std::string artifact_version;
  std::string artifact_fingerprint;
  double threshold = 0.5;
  std::string options_json;
};

class LabelStore {
 public:
  enum class Access {
    write,  // creates the store (SQLite file) and its tables when missing, upgrades an old schema
    read,   // the store must exist and hold the tables; opened read-only
  };
  // location: a SQLite file path, or postgresql://... / postgres://...
  static std::unique_ptr<LabelStore> open(const std::string& location, Access access);

  const std::string& where() const { return db_->where(); }

  void begin_run(const RunStart& run);
  void finish_run(const std::string& run_id, const std::string& finished_at, const RunCounts& counts);
  // The fingerprint of an earlier run with this artifact version but other files, if any
  // (the labeler changed without a new version).
  std::optional<std::string> other_fingerprint(const std::string& artifact_version, const std::string& fingerprint);

  // Stored states of those of `members` that the store has.
  std::unordered_map<std::string, MemberState> member_states(const std::vector<std::string>& members);
  // Replaces everything stored for labels.member, in one transaction.
  void replace_member(const MemberLabels& labels);
  std::optional<MemberLabels> member(const std::string& member);
  // Every stored judgment, by member then rank, streaming.
  void for_each_judgment(const std::function<void(const StoredJudgment&)>& fn);
  // Every member with its profile and judgments (rank order), by member, streaming; input_hash,
  // rounds, stop_reason and labeled_at are left empty (what exports of texts need, no more).
  void for_each_member(const std::function<void(const MemberLabels&)>& fn);

  LabelStore(std::unique_ptr<SqlDatabase> db, int schema_version) : db_(std::move(db)), schema_version_(schema_version) {}

  // For the queries of review_store.h, over the same connection.
  SqlDatabase& database() { return *db_; }
  int schema_version() const { return schema_version_; }

 private:
  std::unique_ptr<SqlDatabase> db_;
  int schema_version_;
};

}  // namespace sift::store
