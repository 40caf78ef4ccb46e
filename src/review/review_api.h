#pragma once
// The JSON API of `sift review` over a label store (store/review_store.h). Each call answers
// one request; a bad parameter or body throws serve::BadRequest (400, or 403/404 as said) with
// a message naming it. Calls may come from several I/O threads: one mutex serializes the
// store's connection.
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
//   POST /api/review {member, qualification, verdict: "right"|"wrong"}
//                                            {review: {...}}; 403 without --reviewer, 404 an unjudged pair
//   GET  /api/calibration                   {threshold, history: sift.json "calibrations", reference: [[score,
//                                             label]...]|null, reviewed: [[score, true label]...]}
#include <nlohmann/json.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "review/query_string.h"
#include "review/reference_labels.h"
#include "store/review_store.h"

namespace sift::review {

struct ReviewApiOptions {
  std::optional<std::string> reviewer;  // --reviewer: verdicts are recorded as this name; none: read-only
  nlohmann::json labeler = nullptr;     // --model's sift.json (null without --model)
  ReferenceLabels reference = {};       // --reference
};

class ReviewApi {
 public:
  ReviewApi(std::unique_ptr<store::ReviewStore> store, ReviewApiOptions options);

  nlohmann::json session();
  nlohmann::json members(const QueryParams& params);
  nlohmann::json member(const QueryParams& params);
  nlohmann::json flips(const QueryParams& params);
  nlohmann::json queue(const QueryParams& params);
  nlohmann::json review(std::string_view body);
  nlohmann::json calibration();

  // The parameters each GET route takes (for QueryParams).
  static const std::vector<std::string_view> kMembersParams, kMemberParams, kFlipsParams, kQueueParams;

 private:
  // The threshold the pages start at: --model's sift.json, else the latest run's.
  double threshold();
  int64_t disagreements(const store::MemberLabels& labels) const;

  std::mutex mutex_;  // the store's connection, one call at a time
  std::unique_ptr<store::ReviewStore> store_;
  ReviewApiOptions options_;
};

}  // namespace sift::review
