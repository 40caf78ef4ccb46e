#include "review/review_api.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/utc_time.h"
#include "io/json_parse.h"
#include "scoring/calibration_map.h"
#include "serve/api_requests.h"
#include "workflows/reliability.h"

namespace sift::review {

namespace {

using nlohmann::json;
using serve::BadRequest;

constexpr size_t kMaxIdBytes = 1024;      // a member or qualification id
constexpr size_t kMaxSearchBytes = 256;   // a search text

json judgment_json(const store::Judgment& j) {
  return {{"qualification", j.qualification}, {"name", j.name}, {"score", j.score},
          {"label", j.label},                 {"round", j.round}, {"rank", j.rank}};
}

json review_json(const store::Review& r) {
  return {{"member", r.member},       {"qualification", r.qualification}, {"reviewer", r.reviewer},
          {"verdict", store::verdict_name(r.verdict)}, {"name", r.name},   {"score", r.score},
          {"label", r.label},         {"true_label", r.true_label()},     {"threshold", r.threshold},
          {"artifact_version", r.artifact_version},    {"reviewed_at", r.reviewed_at}};
}

// A string field of the review body, present and at most kMaxIdBytes.
std::string required_text(const json& body, const char* field) {
  const auto it = body.find(field);
  if (it == body.end()) throw BadRequest(field, fmt::format("\"{}\" is required", field));
  if (!it->is_string()) throw BadRequest(field, fmt::format("\"{}\" must be a string", field));
  std::string text = it->get<std::string>();
  if (text.empty() || text.size() > kMaxIdBytes)
    throw BadRequest(field, fmt::format("\"{}\" must be 1 to {} bytes", field, kMaxIdBytes));
  return text;
}

// The fields of a verdict: which pair, the verdict, and what the page showed of the pair.
const std::vector<std::string_view> kReviewFields = {"member", "qualification", "verdict", "label",
                                                     "score",  "threshold",     "artifact_version"};

// A field the page sends with the judgment it showed; missing, the client is an older page.
const json& shown_field(const json& body, const char* field) {
  const auto it = body.find(field);
  if (it == body.end())
    throw BadRequest(field, fmt::format("\"{}\" is required: the page sends the judgment it showed (label, score, "
                                        "threshold, artifact_version), so a verdict never lands on a judgment that "
                                        "changed since; reload the page",
                                        field));
  return *it;
}

// A probability field of what was shown: a number in [0, 1].
double shown_probability(const json& body, const char* field) {
  const json& value = shown_field(body, field);
  if (!value.is_number() || !(value.get<double>() >= 0.0 && value.get<double>() <= 1.0))
    throw BadRequest(field, fmt::format("\"{}\" must be a number in [0, 1]", field));
  return value.get<double>();
}

store::ShownJudgment shown_judgment(const json& body) {
  store::ShownJudgment shown;
  const json& label = shown_field(body, "label");
  if (!label.is_boolean()) throw BadRequest("label", "\"label\" must be true or false");
  shown.label = label.get<bool>();
  shown.score = shown_probability(body, "score");
  shown.threshold = shown_probability(body, "threshold");
  shown_field(body, "artifact_version");
  shown.artifact_version = required_text(body, "artifact_version");
  return shown;
}

serve::Reply json_ok(json body) { return serve::Reply{200, std::move(body), {}, {}, {}}; }

}  // namespace

const std::vector<std::string_view> ReviewApi::kMembersParams = {"id", "text", "order", "offset", "limit"};
const std::vector<std::string_view> ReviewApi::kMemberParams = {"id"};
const std::vector<std::string_view> ReviewApi::kFlipsParams = {"threshold"};
const std::vector<std::string_view> ReviewApi::kQueueParams = {"limit"};

std::unique_ptr<ReviewApi> ReviewApi::open(const std::string& location, ReviewApiOptions options) {
  using store::ReviewStore;
  // The writer first: it upgrades a store of an older schema, which the reader then reads.
  std::unique_ptr<ReviewStore> verdicts =
      options.reviewer ? ReviewStore::open(location, ReviewStore::Access::review) : nullptr;
  std::unique_ptr<ReviewStore> pages = ReviewStore::open(location, ReviewStore::Access::read);
  return std::make_unique<ReviewApi>(std::move(pages), std::move(verdicts), std::move(options));
}

ReviewApi::ReviewApi(std::unique_ptr<store::ReviewStore> pages, std::unique_ptr<store::ReviewStore> verdicts,
                     ReviewApiOptions options)
    : pages_(std::move(pages)), verdicts_(std::move(verdicts)), options_(std::move(options)) {
  if (bool(verdicts_) != bool(options_.reviewer)) fail("sift review: verdicts need their own store connection, and only a reviewer's");
  pages_->labels().database().set_lock_wait(kLockWait);
  if (verdicts_) verdicts_->labels().database().set_lock_wait(kLockWait);
}

double ReviewApi::threshold() {
  if (options_.labeler.is_object() && options_.labeler.contains("threshold") &&
      options_.labeler["threshold"].is_number())
    return options_.labeler["threshold"].get<double>();
  const auto run = pages_->latest_run();
  return run ? run->second : 0.5;
}

json ReviewApi::session() {
  std::lock_guard lock(pages_mutex_);
  const auto run = pages_->latest_run();
  json version = nullptr;
  if (options_.labeler.is_object() && options_.labeler.contains("version")) version = options_.labeler["version"];
  else if (run) version = run->first;
  return {{"reviewer", options_.reviewer ? json(*options_.reviewer) : json(nullptr)},
          {"threshold", threshold()},
          {"artifact_version", version},
          {"members", pages_->member_count()},
          {"pairs", pages_->pair_count()},
          {"reference", !options_.reference.empty()},
          {"store", pages_->where()}};
}

int64_t ReviewApi::disagreements(const store::MemberLabels& labels) const {
  int64_t n = 0;
  for (const store::Judgment& j : labels.judgments) {
    const std::optional<bool> reference = options_.reference.label_of(labels.member, j);
    if (reference && *reference != j.label) ++n;
  }
  return n;
}

json ReviewApi::members(const QueryParams& params) {
  store::MemberQuery query;
  query.id_prefix = params.text("id", kMaxSearchBytes).value_or("");
  query.text = params.text("text", kMaxSearchBytes).value_or("");
  const std::string order = params.text("order", 32).value_or("member");
  if (order == "uncertainty") query.order = store::MemberOrder::uncertainty;
  else if (order != "member") throw BadRequest("order", "order: \"" + order.substr(0, 32) + "\" is neither member nor uncertainty");
  query.offset = params.integer("offset", 0, int64_t{1} << 40).value_or(0);
  query.limit = params.integer("limit", 1, store::kMaxPage).value_or(50);

  std::lock_guard lock(pages_mutex_);
  const store::MemberPage page = pages_->members(query);
  json members = json::array();
  for (const store::MemberSummary& m : page.members) {
    json disagreeing = nullptr;
    if (!options_.reference.empty())
      if (std::optional<store::MemberLabels> labels = pages_->labels().member(m.member))
        disagreeing = disagreements(*labels);
    members.push_back({{"member", m.member},
                       {"rounds", m.rounds},
                       {"judged", m.judged},
                       {"accepted", m.accepted},
                       {"reviewed", m.reviewed},
                       {"stop_reason", m.stop_reason},
                       {"artifact_version", m.artifact_version},
                       {"threshold", m.threshold},
                       {"margin", m.margin},
                       {"disagreements", disagreeing}});
  }
  return {{"total", page.total}, {"offset", query.offset}, {"limit", query.limit}, {"members", std::move(members)}};
}

json ReviewApi::member(const QueryParams& params) {
  const std::optional<std::string> id = params.text("id", kMaxIdBytes);
  if (!id || id->empty()) throw BadRequest("id", "id: the member's id is required");
  std::lock_guard lock(pages_mutex_);
  const std::optional<store::MemberLabels> m = pages_->labels().member(*id);
  if (!m) throw BadRequest("id", fmt::format("no member \"{}\" in the store", id->substr(0, 100)), 404);
  const std::vector<store::Review> reviews = pages_->reviews_of(*id);
  json judgments = json::array();
  for (const store::Judgment& j : m->judgments) {
    json row = judgment_json(j);
    const std::optional<bool> reference = options_.reference.label_of(m->member, j);
    row["reference"] = reference ? json(*reference) : json(nullptr);
    json verdicts = json::array();
    for (const store::Review& r : reviews)
      if (r.qualification == j.qualification)
        verdicts.push_back({{"reviewer", r.reviewer},
                            {"verdict", store::verdict_name(r.verdict)},
                            {"reviewed_at", r.reviewed_at},
                            {"stale", r.input_hash != m->input_hash}});
    row["reviews"] = std::move(verdicts);
    judgments.push_back(std::move(row));
  }
  return {{"member", m->member},
          {"profile", m->profile ? json(*m->profile) : json(nullptr)},
          {"threshold", m->threshold},
          {"artifact_version", m->artifact_version},
          {"rounds", m->rounds},
          {"stop_reason", m->stop_reason},
          {"run_id", m->run_id},
          {"labeled_at", m->labeled_at},
          {"judgments", std::move(judgments)}};
}

json ReviewApi::flips(const QueryParams& params) {
  const std::optional<double> t = params.number("threshold", 0.0, 1.0);
  if (!t) throw BadRequest("threshold", "threshold: a number in 0..1 is required");
  std::lock_guard lock(pages_mutex_);
  const store::FlipCounts counts = pages_->flips(*t);
  return {{"threshold", *t}, {"to_yes", counts.to_yes}, {"to_no", counts.to_no}, {"pairs", pages_->pair_count()}};
}

json ReviewApi::queue(const QueryParams& params) {
  const int64_t limit = params.integer("limit", 1, store::kMaxPage).value_or(20);
  std::lock_guard lock(pages_mutex_);
  json pairs = json::array();
  for (const store::QueuedPair& p : pages_->queue(limit))
    pairs.push_back({{"member", p.member},
                     {"qualification", p.qualification},
                     {"name", p.name},
                     {"score", p.score},
                     {"label", p.label},
                     {"threshold", p.threshold}});
  return {{"pairs", std::move(pairs)}};
}

serve::Reply ReviewApi::review(std::string_view body) {
  if (!options_.reviewer)
    throw BadRequest("", "reviewing is off: start sift review with --reviewer NAME to record verdicts", 403);
  json request;
  try {
    request = parse_json(body, "", {.unique_keys = true, .exact_integers = true, .array_cap = std::nullopt});
  } catch (const Error& e) {
    throw BadRequest("", fmt::format("request body: {}", e.what()));
  }
  if (!request.is_object()) throw BadRequest("", "request body: a JSON object is required");
  for (const auto& [key, value] : request.items())
    if (std::find(kReviewFields.begin(), kReviewFields.end(), key) == kReviewFields.end())
      throw BadRequest(key, fmt::format("unknown field \"{}\" ({})", key.substr(0, 64), fmt::join(kReviewFields, ", ")));
  const std::string member = required_text(request, "member");
  const std::string qualification = required_text(request, "qualification");
  const std::optional<store::Verdict> verdict = store::parse_verdict(required_text(request, "verdict"));
  if (!verdict) throw BadRequest("verdict", "\"verdict\" must be \"right\" or \"wrong\"");
  const store::ShownJudgment shown = shown_judgment(request);

  std::unique_lock lock(verdicts_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) throw store::StoreBusy("another verdict is being written to the store");
  try {
    return json_ok({{"review", review_json(verdicts_->review(member, qualification, *verdict, *options_.reviewer,
                                                             utc_timestamp(), shown))}});
  } catch (const store::NoSuchJudgment& e) {
    throw BadRequest("qualification", e.what(), 404);
  } catch (const store::JudgmentChanged& e) {
    serve::Reply conflict = serve::error_reply(409, e.what());
    conflict.body["current"] = {{"member", member},
                                {"qualification", qualification},
                                {"name", e.name},
                                {"score", e.now.score},
                                {"label", e.now.label},
                                {"threshold", e.now.threshold},
                                {"artifact_version", e.now.artifact_version}};
    return conflict;
  }
}

json ReviewApi::calibration() {
  std::lock_guard lock(pages_mutex_);
  json reference = nullptr;
  if (!options_.reference.empty()) {
    reference = json::array();
    for (const std::string& member : options_.reference.members())
      if (std::optional<store::MemberLabels> m = pages_->labels().member(member))
        for (const store::Judgment& j : m->judgments)
          if (std::optional<bool> label = options_.reference.label_of(member, j))
            reference.push_back(json::array({j.score, *label ? 1 : 0}));
  }
  json reviewed = json::array();
  for (const auto& [score, label] : pages_->reviewed_scores()) reviewed.push_back(json::array({score, label ? 1 : 0}));
  json history = json::array();
  if (options_.labeler.is_object() && options_.labeler.contains("calibrations") &&
      options_.labeler["calibrations"].is_array())
    history = options_.labeler["calibrations"];
  json out = {{"threshold", threshold()}, {"history", std::move(history)}, {"reference", std::move(reference)},
              {"reviewed", std::move(reviewed)}};
  out["reliability"] = reliability_of_pairs(out["reference"].is_array() && !out["reference"].empty() ? out["reference"]
                                                                                                     : out["reviewed"]);
  return out;
}

json ReviewApi::reliability_of_pairs(const json& pairs) const {
  // workflows/reliability.h over the [score, label] pairs the page draws its PR curve from:
  // the scores as they are and, when sift.json has a calibration map, its probabilities.
  if (pairs.empty()) return nullptr;
  std::vector<double> scores;
  std::vector<bool> labels;
  for (const json& pair : pairs) {
    scores.push_back(pair[0].get<double>());
    labels.push_back(pair[1].get<int>() == 1);
  }
  const auto curve = [](const Reliability& r) {
    json bins = json::array();
    for (const ReliabilityBin& bin : r.bins)
      bins.push_back({{"lo", bin.lo}, {"hi", bin.hi}, {"n", bin.n}, {"mean", bin.mean_probability}, {"yes_rate", bin.yes_rate}});
    return json{{"ece", r.ece}, {"brier", r.brier}, {"bins", std::move(bins)}};
  };
  json out = {{"ece_bins", kReliabilityBins}, {"raw", curve(reliability(scores, labels))}, {"calibrated", nullptr}};
  if (options_.labeler.is_object() && options_.labeler.contains("calibration_map") &&
      !options_.labeler["calibration_map"].is_null()) {
    const CalibrationMap map = parse_calibration_map(options_.labeler["calibration_map"], "--model's sift.json");
    std::vector<double> probabilities;
    for (double s : scores) probabilities.push_back(map.apply(s));
    out["calibrated"] = curve(reliability(probabilities, labels));
  }
  return out;
}

}  // namespace sift::review
