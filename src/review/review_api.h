#pragma once
// The JSON API of `sift review` over a label store (store/review_store.h). Each call answers
// one request; a bad parameter or body throws serve::BadRequest (400, or 403/404 as said) with
// a message naming it.
//
//   GET  /api/session                       {reviewer|null, threshold, artifact_version, members, pairs, reference}
//   GET  /api/members?id&text&order&offset&limit    id: a prefix of the id; text: a substring of the profile
//                                            {total, offset, limit, members: [{member, rounds, judged, accepted,
//                                             reviewed, stop_reason, artifact_version, threshold, margin,
//                                             disagreements|null}]}       order: member | uncertainty
//   GET  /api/member?id                     {member, profile|null, threshold, rounds, stop_reason, ..., judgments:
//                                             [{qualification, name, score, label, round, rank, reference|null,
//                                             reviews: [{reviewer, verdict, reviewed_at}]}]}      404 unknown member
//   GET  /api/flips?threshold               {threshold, to_yes, to_no, pairs}: the stored labels it would change
//   GET  /api/queue?limit                   {pairs: [{member, qualification, name, score, label, threshold}]}
//   POST /api/review {member, qualification, verdict: "right"|"wrong", and what the page showed:
//                     label, score, threshold, artifact_version}
//                                            {review: {...}}; 403 without --reviewer, 404 an unjudged pair,
//                                            409 the judgment changed since it was shown (sift label ran
//                                            again): nothing recorded, "current" is the store's judgment
//   GET  /api/calibration                   {threshold, history: sift.json "calibrations", reference: [[score,
//                                             label]...]|null, reviewed: [[score, true label]...]}
//
// Calls come from the HTTP layer's I/O threads, several at once. The pages read through one
// connection and verdicts are written through another, so a verdict waiting for a lock never
// holds up a page (SQLite's WAL and PostgreSQL let readers read past a writer). A statement
// waits at most kLockWait for a lock another program holds, then throws store::StoreBusy
// (503 with Retry-After); a verdict that finds another one being written does not wait for
// it and throws StoreBusy too, so at most one I/O thread ever waits on the store's lock.
#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "review/query_string.h"
#include "review/reference_labels.h"
#include "serve/reply.h"
#include "store/review_store.h"

namespace sift::review {

struct ReviewApiOptions {
  std::optional<std::string> reviewer;  // --reviewer: verdicts are recorded as this name; none: read-only
  nlohmann::json labeler = nullptr;     // --model's sift.json (null without --model)
  ReferenceLabels reference = {};       // --reference
};

class ReviewApi {
 public:
  // How long a statement waits for a lock another program holds (sift label writing, a
  // backup) before store::StoreBusy.
  static constexpr std::chrono::milliseconds kLockWait{2000};

  // Opens the store at `location` (a SQLite file or postgresql://): read-only without a
  // reviewer; with one, a second connection writes the verdicts (upgrading an old schema first).
  static std::unique_ptr<ReviewApi> open(const std::string& location, ReviewApiOptions options);
  // `verdicts`: the connection verdicts are written through, given exactly when options.reviewer is.
  ReviewApi(std::unique_ptr<store::ReviewStore> pages, std::unique_ptr<store::ReviewStore> verdicts,
            ReviewApiOptions options);

  nlohmann::json session();
  nlohmann::json members(const QueryParams& params);
  nlohmann::json member(const QueryParams& params);
  nlohmann::json flips(const QueryParams& params);
  nlohmann::json queue(const QueryParams& params);
  serve::Reply review(std::string_view body);  // a Reply: a 409 carries the current judgment
  nlohmann::json calibration();

  // The parameters each GET route takes (for QueryParams).
  static const std::vector<std::string_view> kMembersParams, kMemberParams, kFlipsParams, kQueueParams;

 private:
  // {"ece_bins", "raw": {"ece", "brier", "bins": [{lo, hi, n, mean, yes_rate}]}, "calibrated"}
  // of [score, label] pairs (null when there are none); "calibrated" is null without a map.
  nlohmann::json reliability_of_pairs(const nlohmann::json& pairs) const;

  // The threshold the pages start at: --model's sift.json, else the latest run's.
  double threshold();
  int64_t disagreements(const store::MemberLabels& labels) const;

  std::mutex pages_mutex_;  // pages_, one call at a time
  std::unique_ptr<store::ReviewStore> pages_;
  std::mutex verdicts_mutex_;  // verdicts_, one verdict at a time (never waited for)
  std::unique_ptr<store::ReviewStore> verdicts_;
  ReviewApiOptions options_;
};

}  // namespace sift::review
