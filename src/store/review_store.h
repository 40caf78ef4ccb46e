#pragma once
// What `sift review` reads from a label store and writes to it, and what
// `sift labels export --reviewed` reads: members by page, the pairs a threshold would flip,
// the queue of unreviewed pairs, and people's verdicts (the reviews table, label_schema.cpp).
//
// A verdict says whether a stored label is right. It is a row of its own, keyed by (member,
// qualification, reviewer), that copies what the reviewer saw (candidate text, score, label,
// threshold, artifact version, the member's input hash); the labels row is never changed. The
// caller says what the reviewer was shown (ShownJudgment), and a verdict on a judgment the
// store no longer holds is refused (JudgmentChanged).
// The true label of a reviewed pair is the label seen when the verdict is "right", its
// opposite when "wrong". A review of a member whose input has changed since is stale: kept,
// not exported.
//
// Every query here is a range scan over an index (members_margin, labels_margin,
// labels_flip, the primary keys) or a page of at most kMaxPage rows, so a page of a store
// of 100,000 members answers in milliseconds; a search of profile texts reads them all, once.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "store/label_store.h"

namespace sift::store {

enum class Verdict { right, wrong };

// A verdict on a pair the store has not judged.
class NoSuchJudgment : public Error {
 public:
  using Error::Error;
};

// What a reviewer was shown of a judged pair. A verdict is recorded only while the store
// still holds exactly this judgment: a re-label in between (another threshold or labeler
// version) may have turned the label, and a verdict on the old one would export the
// opposite training label.
struct ShownJudgment {
  double score = 0;
  bool label = false;
  double threshold = 0.5;
  std::string artifact_version;
  bool operator==(const ShownJudgment&) const = default;
};

// A verdict on a judgment that changed since it was shown; nothing was written.
class JudgmentChanged : public Error {
 public:
  JudgmentChanged(const std::string& message, std::string name, ShownJudgment now)
      : Error(message), name(std::move(name)), now(std::move(now)) {}
  std::string name;   // the candidate text
  ShownJudgment now;  // the judgment the store holds
};
std::string_view verdict_name(Verdict verdict);
std::optional<Verdict> parse_verdict(std::string_view name);

// One row of the members list.
struct MemberSummary {
  std::string member;
  int64_t rounds = 0;
  int64_t judged = 0;    // labels rows
  int64_t accepted = 0;  // of them label 1
  int64_t reviewed = 0;  // of them with a verdict
  std::string stop_reason;
  std::string artifact_version;
  double threshold = 0.5;
  double margin = 1;  // min |score - threshold| over its labels (1: none)
};

enum class MemberOrder {
  member,       // by id
  uncertainty,  // by margin, smallest first (then by id)
};

inline constexpr int64_t kMaxPage = 500;

struct MemberQuery {
  std::string id_prefix = {};  // members whose id starts with it (a range of the primary key)
  std::string text = {};       // members whose profile text contains it (reads every profile)
  MemberOrder order = MemberOrder::member;
  int64_t offset = 0;
  int64_t limit = 50;  // 1 .. kMaxPage
};

struct MemberPage {
  int64_t total = 0;  // members matching id_prefix and text
  std::vector<MemberSummary> members;
};

// The labels a threshold other than the one each was judged under would change.
struct FlipCounts {
  int64_t to_yes = 0;  // label 0, score >= threshold
  int64_t to_no = 0;   // label 1, score < threshold
};

struct Review {
  std::string member;
  std::string qualification;
  std::string reviewer;
  Verdict verdict = Verdict::right;
  std::string name;  // what the reviewer saw
  double score = 0;
  bool label = false;
  double threshold = 0.5;
  std::string artifact_version;
  std::string input_hash;
  std::string reviewed_at;  // ISO 8601 UTC

  bool true_label() const { return verdict == Verdict::right ? label : !label; }
};

// A judged pair of the review queue.
struct QueuedPair {
  std::string member;
  std::string qualification;
  std::string name;
  double score = 0;
  bool label = false;
  double threshold = 0.5;
};

// A member's current reviewed pairs as a training row {query: profile, items, labels}.
struct ReviewedMember {
  std::string member;
  std::string profile;
  std::vector<std::string> qualifications;  // by id
  std::vector<std::string> items;           // their candidate texts
  std::vector<bool> labels;                 // their true labels
};

struct ReviewedExportCounts {
  int64_t members = 0;
  int64_t pairs = 0;
  int64_t stale = 0;       // reviews of a member whose input changed since
  int64_t no_profile = 0;  // reviewed pairs of members stored without their profile text
};

class ReviewStore {
 public:
  enum class Access {
    read,    // read-only; a store written before reviews existed is an Error saying how to upgrade it
    review,  // upgrades the schema when needed, and writes verdicts
  };
  static std::unique_ptr<ReviewStore> open(const std::string& location, Access access);

  LabelStore& labels() { return *labels_; }
  const std::string& where() const { return labels_->where(); }

  MemberPage members(const MemberQuery& query);
  FlipCounts flips(double threshold);
  int64_t member_count();
  int64_t pair_count();
  // The artifact version and threshold of the latest `sift label` run, if any.
  std::optional<std::pair<std::string, double>> latest_run();

  // Every verdict on this member's pairs, by qualification then reviewer.
  std::vector<Review> reviews_of(const std::string& member);
  // Records `reviewer`'s verdict on the stored judgment of (member, qualification), replacing
  // that reviewer's earlier one; returns the row written. NoSuchJudgment when the pair is not
  // judged; JudgmentChanged when the store's judgment is not the one `shown`.
  Review review(const std::string& member, const std::string& qualification, Verdict verdict,
                const std::string& reviewer, const std::string& reviewed_at, const ShownJudgment& shown);
  // At most n judged pairs that nobody has reviewed, most uncertain (nearest the threshold) first.
  std::vector<QueuedPair> queue(int64_t n);
  // Every current verdict (the latest per pair when several people reviewed it), as
  // (score seen, true label), for the calibration page.
  std::vector<std::pair<double, bool>> reviewed_scores();
  // Each member with current reviewed pairs, by member id; returns what was written and left out.
  ReviewedExportCounts for_each_reviewed_member(const std::function<void(const ReviewedMember&)>& fn);

  explicit ReviewStore(std::unique_ptr<LabelStore> labels);

 private:
  // The members list's rows for "WHERE ... ORDER BY ... [LIMIT]" over members m.
  std::vector<MemberSummary> summaries(const std::string& where_order_limit, const std::vector<SqlValue>& params);

  std::unique_ptr<LabelStore> labels_;
  SqlDatabase& db_;
};

}  // namespace sift::store
