#include "store/review_store.h"

#include <fmt/format.h>

#include "core/error.h"
#include "store/label_schema.h"

namespace sift::store {

namespace {

// `text` as a LIKE pattern matching it anywhere, with LIKE's wildcards (and the escape) escaped.
std::string contains_pattern(std::string_view text) {
  std::string pattern = "%";
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') pattern += '\\';
    pattern += c;
  }
  return pattern + "%";
}

// "(?, ?, ?)" for n values.
std::string placeholders(size_t n) {
  std::string list = "(";
  for (size_t i = 0; i < n; ++i) list += i ? ", ?" : "?";
  return list + ")";
}

// U+10FFFF in UTF-8: in byte order after every valid UTF-8 text that starts with a given
// prefix, so [prefix, prefix + this) holds exactly the ids that start with it.
constexpr std::string_view kAfterEveryCodePoint = "\xf4\x8f\xbf\xbf";

constexpr const char* kReviewColumns =
    "member, qualification, reviewer, verdict, name, score, label, threshold, artifact_version, input_hash, "
    "reviewed_at";

Review review_of(const SqlRow& row) {
  Review r;
  r.member = as_text(row[0], "reviews.member");
  r.qualification = as_text(row[1], "reviews.qualification");
  r.reviewer = as_text(row[2], "reviews.reviewer");
  const std::string& verdict = as_text(row[3], "reviews.verdict");
  const std::optional<Verdict> parsed = parse_verdict(verdict);
  if (!parsed) fail("store column reviews.verdict: \"{}\" is neither right nor wrong", verdict);
  r.verdict = *parsed;
  r.name = as_text(row[4], "reviews.name");
  r.score = as_double(row[5], "reviews.score");
  r.label = as_int(row[6], "reviews.label") != 0;
  r.threshold = as_double(row[7], "reviews.threshold");
  r.artifact_version = as_text(row[8], "reviews.artifact_version");
  r.input_hash = as_text(row[9], "reviews.input_hash");
  r.reviewed_at = as_text(row[10], "reviews.reviewed_at");
  return r;
}

}  // namespace

std::string_view verdict_name(Verdict verdict) { return verdict == Verdict::right ? "right" : "wrong"; }

std::optional<Verdict> parse_verdict(std::string_view name) {
  if (name == "right") return Verdict::right;
  if (name == "wrong") return Verdict::wrong;
  return std::nullopt;
}

std::unique_ptr<ReviewStore> ReviewStore::open(const std::string& location, Access access) {
  std::unique_ptr<LabelStore> labels =
      LabelStore::open(location, access == Access::review ? LabelStore::Access::write : LabelStore::Access::read);
  if (labels->schema_version() < 2)
    fail("{}: this label store was written before reviews existed; `sift review --reviewer NAME` (or the next "
         "`sift label` run) upgrades it in place, keeping its rows",
         labels->where());
  return std::make_unique<ReviewStore>(std::move(labels));
}

ReviewStore::ReviewStore(std::unique_ptr<LabelStore> labels) : labels_(std::move(labels)), db_(labels_->database()) {}

MemberPage ReviewStore::members(const MemberQuery& query) {
  if (query.limit < 1 || query.limit > kMaxPage) fail("limit {} is not within 1..{}", query.limit, kMaxPage);
  if (query.offset < 0) fail("offset {} is negative", query.offset);
  const std::string_view bytes = db_.byte_order_collation();
  const std::string order =
      query.order == MemberOrder::uncertainty ? fmt::format("m.margin, m.member {}", bytes) : fmt::format("m.member {}", bytes);
  std::vector<std::string> conditions;
  std::vector<SqlValue> params;
  if (!query.id_prefix.empty()) {  // a range of the primary key, in byte order
    conditions.push_back(fmt::format("m.member {0} >= ? AND m.member {0} < ?", bytes));
    params.emplace_back(query.id_prefix);
    params.emplace_back(query.id_prefix + std::string(kAfterEveryCodePoint));
  }
  if (!query.text.empty()) {
    conditions.push_back("m.profile LIKE ? ESCAPE '\\'");
    params.emplace_back(contains_pattern(query.text));
  }
  std::string where;
  for (const std::string& condition : conditions) where += (where.empty() ? "WHERE " : " AND ") + condition;

  MemberPage page;
  if (query.text.empty()) {  // counted and paged over indexes
    db_.query("SELECT COUNT(*) FROM members m " + where, params,
              [&](const SqlRow& row) { page.total = as_int(row[0], "COUNT(*)"); });
    params.emplace_back(query.limit);
    params.emplace_back(query.offset);
    page.members = summaries(fmt::format("{} ORDER BY {} LIMIT ? OFFSET ?", where, order), params);
    return page;
  }
  // A text search reads every profile once: the matching ids in order, then the page's rows.
  std::vector<std::string> matching;
  db_.query(fmt::format("SELECT m.member FROM members m {} ORDER BY {}", where, order), params,
            [&](const SqlRow& row) { matching.push_back(as_text(row[0], "members.member")); });
  page.total = int64_t(matching.size());
  if (query.offset >= page.total) return page;
  const auto first = matching.begin() + query.offset;
  const std::vector<SqlValue> ids(first, first + std::min<int64_t>(query.limit, page.total - query.offset));
  page.members = summaries(fmt::format("WHERE m.member IN {} ORDER BY {}", placeholders(ids.size()), order), ids);
  return page;
}

std::vector<MemberSummary> ReviewStore::summaries(const std::string& where_order_limit,
                                                  const std::vector<SqlValue>& params) {
  std::vector<MemberSummary> members;
  db_.query(fmt::format("SELECT m.member, m.rounds, m.stop_reason, m.artifact_version, m.threshold, m.margin, "
                        "(SELECT COUNT(*) FROM labels l WHERE l.member = m.member), "
                        // by the primary key (a "label = 1" condition would lead SQLite to labels_flip)
                        "(SELECT COALESCE(SUM(l.label), 0) FROM labels l WHERE l.member = m.member), "
                        "(SELECT COUNT(DISTINCT r.qualification) FROM reviews r WHERE r.member = m.member) "
                        "FROM members m {}",
                        where_order_limit),
            params, [&](const SqlRow& row) {
              MemberSummary s;
              s.member = as_text(row[0], "members.member");
              s.rounds = as_int(row[1], "members.rounds");
              s.stop_reason = as_text(row[2], "members.stop_reason");
              s.artifact_version = as_text(row[3], "members.artifact_version");
              s.threshold = as_double(row[4], "members.threshold");
              s.margin = as_double(row[5], "members.margin");
              s.judged = as_int(row[6], "judged");
              s.accepted = as_int(row[7], "accepted");
              s.reviewed = as_int(row[8], "reviewed");
              members.push_back(std::move(s));
            });
  return members;
}

FlipCounts ReviewStore::flips(double threshold) {
  FlipCounts counts;
  db_.query("SELECT (SELECT COUNT(*) FROM labels WHERE label = 0 AND score >= ?), "
            "(SELECT COUNT(*) FROM labels WHERE label = 1 AND score < ?)",
            {threshold, threshold}, [&](const SqlRow& row) {
              counts.to_yes = as_int(row[0], "to_yes");
              counts.to_no = as_int(row[1], "to_no");
            });
  return counts;
}

int64_t ReviewStore::member_count() {
  int64_t n = 0;
  db_.query("SELECT COUNT(*) FROM members", {}, [&](const SqlRow& row) { n = as_int(row[0], "COUNT(*)"); });
  return n;
}

int64_t ReviewStore::pair_count() {
  int64_t n = 0;
  db_.query("SELECT COUNT(*) FROM labels", {}, [&](const SqlRow& row) { n = as_int(row[0], "COUNT(*)"); });
  return n;
}

std::optional<std::pair<std::string, double>> ReviewStore::latest_run() {
  std::optional<std::pair<std::string, double>> run;
  db_.query("SELECT artifact_version, threshold FROM runs ORDER BY started_at DESC, run_id DESC LIMIT 1", {},
            [&](const SqlRow& row) {
              run.emplace(as_text(row[0], "runs.artifact_version"), as_double(row[1], "runs.threshold"));
            });
  return run;
}

std::vector<Review> ReviewStore::reviews_of(const std::string& member) {
  std::vector<Review> reviews;
  db_.query(fmt::format("SELECT {} FROM reviews WHERE member = ? ORDER BY qualification, reviewer", kReviewColumns),
            {member}, [&](const SqlRow& row) { reviews.push_back(review_of(row)); });
  return reviews;
}

Review ReviewStore::review(const std::string& member, const std::string& qualification, Verdict verdict,
                           const std::string& reviewer, const std::string& reviewed_at, const ShownJudgment& shown) {
  SqlTransaction transaction(db_, TransactionKind::write);
  db_.lock_key(member);  // a run re-labeling the member waits until the verdict is in, or goes first
  std::optional<Review> seen;
  db_.query("SELECT l.name, l.score, l.label, l.threshold, l.artifact_version, m.input_hash FROM labels l "
            "JOIN members m ON m.member = l.member WHERE l.member = ? AND l.qualification = ?",
            {member, qualification}, [&](const SqlRow& row) {
              Review r;
              r.name = as_text(row[0], "labels.name");
              r.score = as_double(row[1], "labels.score");
              r.label = as_int(row[2], "labels.label") != 0;
              r.threshold = as_double(row[3], "labels.threshold");
              r.artifact_version = as_text(row[4], "labels.artifact_version");
              r.input_hash = as_text(row[5], "members.input_hash");
              seen = std::move(r);
            });
  if (!seen) throw NoSuchJudgment(fmt::format("member \"{}\" has no judgment of qualification \"{}\"", member, qualification));
  const ShownJudgment now{seen->score, seen->label, seen->threshold, seen->artifact_version};
  if (!(now == shown))
    throw JudgmentChanged(fmt::format("the judgment of \"{}\" for member \"{}\" changed since it was shown (sift label "
                                      "ran again): it is now {}, score {:.3f} at threshold {:.3f}, artifact version "
                                      "\"{}\"; no verdict was recorded",
                                      qualification, member, now.label ? "YES" : "NO", now.score, now.threshold,
                                      now.artifact_version),
                          seen->name, now);
  Review& r = *seen;
  r.member = member;
  r.qualification = qualification;
  r.reviewer = reviewer;
  r.verdict = verdict;
  r.reviewed_at = reviewed_at;
  db_.execute(fmt::format("INSERT INTO reviews ({}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                          "ON CONFLICT (member, qualification, reviewer) DO UPDATE SET verdict = excluded.verdict, "
                          "name = excluded.name, score = excluded.score, label = excluded.label, "
                          "threshold = excluded.threshold, artifact_version = excluded.artifact_version, "
                          "input_hash = excluded.input_hash, reviewed_at = excluded.reviewed_at",
                          kReviewColumns),
              {r.member, r.qualification, r.reviewer, std::string(verdict_name(r.verdict)), r.name, r.score,
               int64_t(r.label ? 1 : 0), r.threshold, r.artifact_version, r.input_hash, r.reviewed_at});
  transaction.commit();
  return r;
}

std::vector<QueuedPair> ReviewStore::queue(int64_t n) {
  if (n < 1 || n > kMaxPage) fail("limit {} is not within 1..{}", n, kMaxPage);
  std::vector<QueuedPair> pairs;
  db_.query("SELECT l.member, l.qualification, l.name, l.score, l.label, l.threshold FROM labels l "
            "WHERE NOT EXISTS (SELECT 1 FROM reviews r WHERE r.member = l.member AND r.qualification = l.qualification) "
            "ORDER BY ABS(l.score - l.threshold) LIMIT ?",
            {n}, [&](const SqlRow& row) {
              QueuedPair p;
              p.member = as_text(row[0], "labels.member");
              p.qualification = as_text(row[1], "labels.qualification");
              p.name = as_text(row[2], "labels.name");
              p.score = as_double(row[3], "labels.score");
              p.label = as_int(row[4], "labels.label") != 0;
              p.threshold = as_double(row[5], "labels.threshold");
              pairs.push_back(std::move(p));
            });
  return pairs;
}

namespace {

// The latest verdict on each (member, qualification), whether the member's input is still the
// one reviewed, and its profile text: rows by member, qualification, newest first.
constexpr const char* kLatestReviews =
    "SELECT r.member, r.qualification, r.reviewer, r.verdict, r.name, r.score, r.label, r.threshold, "
    "r.artifact_version, r.input_hash, r.reviewed_at, CASE WHEN r.input_hash = m.input_hash THEN 1 ELSE 0 END, "
    "m.profile FROM reviews r JOIN members m ON m.member = r.member "
    "ORDER BY r.member {0}, r.qualification {0}, r.reviewed_at DESC, r.reviewer {0}";

}  // namespace

std::vector<std::pair<double, bool>> ReviewStore::reviewed_scores() {
  std::vector<std::pair<double, bool>> scores;
  std::string last_member, last_qualification;
  bool any = false;
  db_.query(fmt::format(kLatestReviews, db_.byte_order_collation()), {}, [&](const SqlRow& row) {
    const Review r = review_of(row);
    if (any && r.member == last_member && r.qualification == last_qualification) return;  // an older verdict
    any = true;
    last_member = r.member;
    last_qualification = r.qualification;
    if (as_int(row[11], "current") == 1) scores.emplace_back(r.score, r.true_label());
  });
  return scores;
}

ReviewedExportCounts ReviewStore::for_each_reviewed_member(const std::function<void(const ReviewedMember&)>& fn) {
  ReviewedExportCounts counts;
  ReviewedMember current;
  std::string last_qualification;
  bool any = false;
  const auto flush = [&] {
    if (current.items.empty()) return;
    fn(current);
    counts.members += 1;
    counts.pairs += int64_t(current.items.size());
    current.qualifications.clear();
    current.items.clear();
    current.labels.clear();
  };
  db_.query(fmt::format(kLatestReviews, db_.byte_order_collation()), {}, [&](const SqlRow& row) {
    const Review r = review_of(row);
    if (any && r.member == current.member && r.qualification == last_qualification) return;  // an older verdict
    if (!any || r.member != current.member) {
      flush();
      current.member = r.member;
      current.profile = is_null(row[12]) ? std::string() : as_text(row[12], "members.profile");
    }
    any = true;
    last_qualification = r.qualification;
    if (as_int(row[11], "current") != 1) {
      counts.stale += 1;
      return;
    }
    if (is_null(row[12])) {
      counts.no_profile += 1;
      return;
    }
    current.qualifications.push_back(r.qualification);
    current.items.push_back(r.name);
    current.labels.push_back(r.true_label());
  });
  flush();
  return counts;
}

}  // namespace sift::store
