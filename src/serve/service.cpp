#include "serve/service.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "scoring/long_items.h"
#include "scoring/plan_cost.h"
#include "scoring/truncation.h"
#include "serve/api_requests.h"

namespace sift::serve {
namespace {

using nlohmann::json;

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// Encodes a prompt part the client rendered itself (/v1/score text): special tokens are
// recognised anywhere in it, as a chat template writes them; no BOS/EOS.
TokenIds encode_rendered(const Tokenizer& tokenizer, std::string_view text, const std::string& field) {
  try {
    return tokenizer.encode(text, {.add_special_tokens = false, .special_text = SpecialText::Recognise});
  } catch (const Error& e) {
    throw BadRequest(field, fmt::format("{}: {}", field, e.what()));
  }
}

void check_ids(const TokenIds& ids, int64_t vocab_size, const std::string& field) {
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] >= vocab_size)
      throw BadRequest(fmt::format("{}[{}]", field, i),
                       fmt::format("{}[{}]: Token ID {} is out of vocabulary (vocab size: {})", field, i, ids[i], vocab_size));
}

TokenIds concat(const TokenIds& a, const TokenIds& b) {
  TokenIds out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// The row's prompt: the query once, then every item (mode mis's [query; item_1; ...; item_n]);
// none when it has no items (nothing runs, the query neither).
int64_t row_prompt_tokens(const Job& job) {
  if (job.items.empty()) return 0;
  int64_t n = static_cast<int64_t>(job.query.size());
  for (const TokenIds& item : job.items) n += static_cast<int64_t>(item.size());
  return n;
}

// OpenAI's usage: prompt_tokens is the whole prompt, however much of it the query-KV cache
// served; prompt_tokens_details.cached_tokens is that part. In mode mis the prompt is the row's
// (the query once, then every item) and the cached part the prompt less what was run,
//   run = result.prefill_tokens - result.cached_tokens   (the scheduler's: its requests' tokens
//                                                         less the query tokens reused)
// so the query's tokens when its K/V was reused, 0 when it ran (once, or in each of a split
// row's calls with the cache off). The baselines' prompt is every prompt their plan runs (the
// query with each item in mode independent; the query once, then each item, in prefix; the
// packed prompts of generate), and the cached part the query tokens they reused (prefix's
// query, when its K/V was kept). Prefill work = prompt_tokens - cached_tokens.
json usage_of(const Job& job) {
  const bool mis = job.mode == ScoringMode::Mis;
  const int64_t prompt = mis ? row_prompt_tokens(job) : job.plan.prompt_tokens;
  const int64_t run = job.result.prefill_tokens - job.result.cached_tokens;
  const int64_t cached = mis ? std::max<int64_t>(0, prompt - run) : job.result.cached_tokens;
  json usage = {{"prompt_tokens", prompt}, {"prompt_tokens_details", {{"cached_tokens", cached}}}};
  if (job.truncated_tokens > 0) usage["truncated_tokens"] = job.truncated_tokens;  // as sift score's usage
  if (!job.windows.empty()) {  // as sift score's usage: a window's most tokens, the stride, the windows run
    int64_t windows = 0;
    for (const ItemWindows& item : job.windows) windows += static_cast<int64_t>(item.spans.size());
    usage["window"] = job.window_tokens;
    usage["stride"] = job.window_stride;
    usage["windows"] = windows;
  }
  return usage;
}

// {"spans": [[begin, end], ...], "best": k}: an item's windows, in characters of its text.
json windows_json(const ItemWindows& item) {
  json spans = json::array();
  for (const auto& [begin, end] : item.spans) spans.push_back({begin, end});
  return {{"spans", std::move(spans)}, {"best", item.best}};
}

// The row rendered with the labeler's templates and tokenized (label, rerank).
void tokenize_row(const LoadedLabeler& engine, Job& job, const std::string& query, const std::vector<std::string>& items,
                  const char* items_field) {
  try {
    job.query = engine.prompts().query_tokens(query);
  } catch (const Error& e) {
    throw BadRequest("query", fmt::format("query: {}", e.what()));
  }
  job.items.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    try {
      job.items.push_back(engine.prompts().item_tokens(items[i]));
    } catch (const Error& e) {
      throw BadRequest(fmt::format("{}[{}]", items_field, i), fmt::format("{}[{}]: {}", items_field, i, e.what()));
    }
  }
}

// A /v1/score prompt part cut to `target` tokens: text to its longest prefix (Right) or suffix
// (Left) of characters that encodes to at most `target` tokens, re-encoded as any part is (as
// `sift score --truncate` cuts text); token ids to their first or last `target`.
TokenIds cut_part(const Tokenizer& tokenizer, const TextOrIds& part, const TokenIds& ids, int64_t target,
                  TruncationDirection direction, const std::string& field) {
  if (const auto* text = std::get_if<std::string>(&part))
    return longest_fitting(*text, direction, target,
                           [&](std::string_view kept) { return encode_rendered(tokenizer, kept, field); });
  const auto keep = static_cast<std::ptrdiff_t>(target);
  return direction == TruncationDirection::Right ? TokenIds(ids.begin(), ids.begin() + keep)
                                                 : TokenIds(ids.end() - keep, ids.end());
}

// The /v1/score parts cut to fit `limit` as "truncate" says (scoring/truncation.h); returns the
// tokens cut. 400 when no cut can make them fit.
int64_t cut_parts_to_fit(const Tokenizer& tokenizer, const ScoreRequest& request, int64_t limit, int64_t bos,
                         TokenIds& query, std::vector<TokenIds>& items) {
  const TruncationDirection direction = request.truncation.direction;
  try {
    return truncate_parts_to_fit(request.truncation.truncate, limit, bos, query, items, [&](int part, int64_t target) {
      if (part < 0) return cut_part(tokenizer, request.query, query, target, direction, "query");
      const size_t i = static_cast<size_t>(part);
      return cut_part(tokenizer, request.items[i], items[i], target, direction, fmt::format("items[{}]", i));
    });
  } catch (const Error& e) {
    throw BadRequest("truncate", e.what());
  }
}

// The rerank list's field as the request named it: TEI's "texts", else "documents".
const char* rerank_items_field(const RerankRequest& request) {
  return request.shape == RerankShape::Tei ? "texts" : "documents";
}

// A finished rerank job's answer, most relevant first (ties keep input order), top_n of them:
//   Jina, Cohere (v1, v2), vLLM: {"results": [{"index", "relevance_score", "document"?: {"text"}}],
//                                 "model", "usage": {"prompt_tokens", ..., "total_tokens"},
//                                 "meta": {"tokens": {"input_tokens", "output_tokens": 0}}}
//   TEI (the body had "texts"):  [{"index", "score", "text"?}]  (a bare array, as TEI answers)
json rerank_answer(const RerankRequest& request, const Job& job, const std::string& model) {
  std::vector<size_t> order(request.documents.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return *job.result.scores[a] > *job.result.scores[b]; });
  if (request.top_n && static_cast<size_t>(*request.top_n) < order.size()) order.resize(static_cast<size_t>(*request.top_n));
  const bool tei = request.shape == RerankShape::Tei;
  std::vector<const ItemWindows*> windows_of(request.documents.size(), nullptr);
  for (const ItemWindows& item : job.result.windows) windows_of[static_cast<size_t>(item.item)] = &item;
  json results = json::array();
  for (size_t index : order) {
    json result = {{"index", index}, {tei ? "score" : "relevance_score", *job.result.scores[index]}};
    if (!tei && !job.result.probabilities.empty()) result["probability"] = *job.result.probabilities[index];
    if (!tei && windows_of[index]) result["windows"] = windows_json(*windows_of[index]);
    if (request.return_documents && tei) result["text"] = request.documents[index];
    else if (request.return_documents) result["document"] = {{"text", request.documents[index]}};
    results.push_back(std::move(result));
  }
  if (tei) return results;
  json usage = usage_of(job);
  usage["total_tokens"] = usage["prompt_tokens"];
  json meta = {{"tokens", {{"input_tokens", usage["prompt_tokens"]}, {"output_tokens", 0}}}};
  return {{"results", std::move(results)}, {"model", model}, {"usage", std::move(usage)}, {"meta", std::move(meta)}};
}

Started answered(Reply reply) {
  Started started;
  started.reply = std::move(reply);
  return started;
}

// A request's job as it arrives: its deadline, if it asks for one.
std::shared_ptr<Job> new_job(const CommonFields& common) {
  auto job = std::make_shared<Job>();
  if (common.timeout_ms) job->deadline = job->arrived + std::chrono::milliseconds(*common.timeout_ms);
  return job;
}

// Runs `step`; what it throws is the reply that refuses the request (none when it returned).
template <typename Step>
std::optional<Reply> refusal_of(Step&& step) {
  try {
    step();
    return std::nullopt;
  } catch (const BadRequest& e) {
    return error_reply(e.status(), e.what(), e.field());
  } catch (const std::exception& e) {
    return error_reply(500, e.what());
  }
}

}  // namespace

Service::Service(Runtime& runtime, const ServiceOptions& options, Metrics& metrics)
    : engine_(runtime.labeler()),
      options_(options),
      metrics_(metrics),
      pool_(runtime,
            {.max_batch_tokens = options.max_batch_tokens, .max_queue_tokens = options.max_queue_tokens,
             .workers = options.workers},
            metrics_),
      preparation_(options.prepare_threads, kMaxPreparingBytes) {
  long_item_rule(long_item_options(ScoringMode::Mis, {}, LongItems::Chunk), request_limit());  // a bad size fails here
}

void Service::check_fits(const Job& job, std::string_view items_field) const {
  try {
    check_row_fits(engine_.model().config(), {job.query, job.items}, pool_.limits());
  } catch (const Error& e) {
    throw BadRequest(std::string(items_field), e.what());
  }
}

void Service::check_queue_room(const PlanCost& plan, ScoringMode mode, std::string_view items_field) const {
  if (plan.tokens() <= options_.max_queue_tokens) return;  // could never be admitted: not "retry later"
  const std::string parts =
      plan.decode_tokens > 0 ? fmt::format(" ({} prompt, up to {} generated)", plan.prompt_tokens, plan.decode_tokens) : "";
  throw BadRequest(std::string(items_field),
                   fmt::format("the request runs {} tokens through the model in mode {}{}, more than --max-queue-tokens {}",
                               plan.tokens(), scoring_mode_name(mode), parts, options_.max_queue_tokens),
                   413);
}

Started Service::prepare(std::shared_ptr<Job> job, size_t body_bytes, const char* items_field,
                         std::function<void()> on_done, Build build, std::function<Reply()> answer) {
  job->on_done = [done = std::move(on_done)](ScoringJob&) { done(); };
  metrics_.preparing_changed(1);
  const bool posted = preparation_.post(
      [this, job, items_field, build = std::move(build)] { build_and_queue(job, build, items_field); },
      static_cast<int64_t>(body_bytes));
  if (!posted) {
    metrics_.preparing_changed(-1);
    return answered(retry_reply(429, fmt::format("more than {} MiB of requests wait to be tokenized; retry later",
                                                 kMaxPreparingBytes >> 20)));
  }
  return {.reply = std::nullopt, .job = std::move(job), .answer = std::move(answer)};
}

void Service::build_and_queue(const std::shared_ptr<Job>& job, const Build& build, const char* items_field) {
  std::optional<Reply> refusal = refusal_of([&] { build(*job); });
  metrics_.preparing_changed(-1);
  if (!refusal) refusal = refusal_of([&] { queue(job, items_field); });
  if (refusal) finish_here(*job, std::move(refusal));
}

void Service::queue(const std::shared_ptr<Job>& job, const char* items_field) {
  if (job->items.empty() && job->item_texts.empty()) return finish_here(*job, std::nullopt);  // nothing to score
  try {
    job->plan = job_plan_cost(*job, pool_.settings());
  } catch (const Error& e) {  // mode generate: an item that cannot fit a request with the query
    throw BadRequest(items_field, e.what());
  }
  job->cost = std::max<int64_t>(1, job->plan.tokens());
  check_queue_room(job->plan, job->mode, items_field);
  if (job->abandoned()) return;  // given up while it was prepared: its client has its answer
  if (!pool_.submit(job))
    finish_here(*job, retry_reply(429, fmt::format("the queue holds more than --max-queue-tokens {} tokens; retry later",
                                                   options_.max_queue_tokens)));
}

void Service::finish_here(Job& job, std::optional<Reply> refusal) {
  if (!job.claim()) return;  // given up meanwhile: its client has its answer
  job.refusal = std::move(refusal);
  job.finish();
}

Reply Service::answer(const Started& started) {
  const Job& job = *started.job;
  if (job.refusal) return *job.refusal;
  if (job.expired) return error_reply(504, "timeout_ms passed before the work started; nothing was computed");
  if (!job.result.error.empty())
    return error_reply(job.mode == ScoringMode::Generate ? 400 : 500, job.result.error,
                       job.mode == ScoringMode::Generate ? "items" : "");
  return started.answer();
}

std::optional<Reply> Service::give_up(Job& job, GiveUp why) {
  if (!job.abandon()) return std::nullopt;
  switch (why) {
    case GiveUp::Deadline:
      metrics_.count_dropped("deadline");
      return error_reply(504, "timeout_ms passed before the work started; nothing was computed");
    case GiveUp::Disconnect:
      metrics_.count_dropped("disconnect");
      return error_reply(499, "the client closed the connection");
    case GiveUp::Shutdown:
      metrics_.count_dropped("shutdown");
      return retry_reply(503, "the server is stopping; the request was not started");
  }
  return std::nullopt;
}

int64_t Service::request_limit() const {
  return pool_.limits().request_limit(engine_.model().config().max_position_embeddings);
}

ScoringOptions Service::long_item_options(ScoringMode mode, const TruncateFields& truncation,
                                          LongItems route_default) const {
  ScoringOptions options;
  options.mode = mode;
  options.truncate = truncation.truncate;
  options.truncation_direction = truncation.direction;
  options.long_items = truncation.long_items;
  if (!options.long_items && truncation.truncate != Truncate::Items) options.long_items = options_.long_items.value_or(route_default);
  options.max_item_tokens = options_.max_item_tokens;
  options.window_stride = options_.window_stride;
  options.max_windows = options_.max_windows;
  return options;
}

void Service::fit_long_items(Job& job, std::string_view query, std::span<const std::string> items,
                             const TruncateFields& truncation, LongItems route_default, const char* items_field) const {
  const int64_t limit = request_limit();
  LongItemRule rule;
  try {
    rule = long_item_rule(long_item_options(job.mode, truncation, route_default), limit);
  } catch (const Error& e) {
    throw BadRequest(truncation.long_items ? "long_items" : "truncate", e.what());
  }
  TokenizedRow row;
  row.query = std::move(job.query);
  row.items = std::move(job.items);
  if (truncation.truncate == Truncate::Query) {
    try {
      truncate_query_to_fit(engine_.prompts(), query, limit, truncation.direction, row);
    } catch (const Error& e) {
      throw BadRequest("truncate", fmt::format("truncate: {}", e.what()));
    }
  }
  try {
    apply_long_item_rule(engine_.prompts(), items, limit, rule, row, pool_.limits().flags, items_field);
  } catch (const Error& e) {
    throw BadRequest(items_field, e.what());
  }
  job.query = std::move(row.query);
  job.items = std::move(row.items);
  job.truncated_tokens = row.truncated_tokens;
  job.windows = std::move(row.windows);
  job.window_tokens = row.window_tokens;
  job.window_stride = row.window_stride;
}

std::optional<Reply> Service::foreign_model(const CommonFields& common) const {
  const std::vector<std::string>& names = options_.model_names;
  if (!common.model || std::find(names.begin(), names.end(), *common.model) != names.end()) return std::nullopt;
  return model_not_found_reply(*common.model, names);
}

const std::string& Service::model_named(const CommonFields& common) const {
  return common.model ? *common.model : options_.model_names.front();
}

void Service::build_label(Job& job, const LabelRequest& request) const {
  job.mode = request.mode;
  job.readout = Readout::yes_no(engine_.answer_ids());
  job.label_by(engine_.artifact(), request.threshold.value_or(engine_.artifact().threshold));
  if (job.mode == ScoringMode::Generate) {  // scored as text: the engine renders it, as its plan does
    job.query_text = request.query;
    job.item_texts = request.items;
    return;
  }
  tokenize_row(engine_, job, request.query, request.items, "items");
  fit_long_items(job, request.query, request.items, request.truncation, LongItems::Error, "items");
  check_fits(job, "items");
}

void Service::build_score(Job& job, ScoreRequest& request) const {
  const int64_t vocab_size = engine_.model().config().vocab_size;
  check_ids(request.label_token_ids, vocab_size, "label_token_ids");
  job.readout = {Readout::Kind::LabelProbabilities, request.label_token_ids, request.apply_softmax};

  // The prompt parts as ids: text is encoded as the client rendered it (the query with the
  // tokenizer's BOS, if it adds one); ids are taken as they are.
  const Tokenizer& tokenizer = engine_.tokenizer();
  const bool text = std::holds_alternative<std::string>(request.query);
  const TokenIds bos = text ? tokenizer.prefix_special_ids() : TokenIds{};
  TokenIds query = text ? encode_rendered(tokenizer, std::get<std::string>(request.query), "query")
                        : std::move(std::get<TokenIds>(request.query));
  check_ids(query, vocab_size, "query");
  std::vector<TokenIds> items;
  items.reserve(request.items.size());
  for (size_t i = 0; i < request.items.size(); ++i) {
    const std::string field = fmt::format("items[{}]", i);
    items.push_back(text ? encode_rendered(tokenizer, std::get<std::string>(request.items[i]), field)
                         : std::move(std::get<TokenIds>(request.items[i])));
    check_ids(items.back(), vocab_size, field);
  }
  // "long_items" (never chunk here: api_requests.cpp) over --long-items: truncate cuts items
  // as "truncate": "items" does; error leaves a long item to check_fits.
  if (request.truncation.long_items == LongItems::Truncate ||
      (!request.truncation.long_items && request.truncation.truncate == Truncate::None &&
       options_.long_items == LongItems::Truncate)) {
    if (request.truncation.truncate == Truncate::Query)
      throw BadRequest("long_items", "field \"long_items\": truncate cuts items, and \"truncate\": \"query\" the query; "
                                     "give one of them");
    request.truncation.truncate = Truncate::Items;
  } else if (request.truncation.long_items == LongItems::Error && request.truncation.truncate == Truncate::Items) {
    throw BadRequest("long_items", "field \"long_items\": error contradicts \"truncate\": \"items\"; give one of them");
  }
  if (request.truncation.truncate != Truncate::None)
    job.truncated_tokens = cut_parts_to_fit(tokenizer, request, request_limit(), static_cast<int64_t>(bos.size()), query, items);
  if (request.item_first) check_item_first(static_cast<int64_t>(bos.size() + query.size()), items);
  job.items.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string field = fmt::format("items[{}]", i);
    TokenIds item = std::move(items[i]);
    // item_first: the prompt is [bos; item; query], a causal prompt of its own (no shared
    // part to reuse), read at its last token.
    if (request.item_first) item = concat(concat(bos, item), query);
    if (item.empty()) throw BadRequest(field, fmt::format("{} has no tokens: the score is read at an item's last token", field));
    job.items.push_back(std::move(item));
  }
  if (!request.item_first) job.query = concat(bos, query);
  check_fits(job, "items");
}

void Service::check_item_first(int64_t query_len, const std::vector<TokenIds>& items) const {
  const int64_t limit = request_limit();
  std::vector<int64_t> lengths;
  lengths.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    lengths.push_back(static_cast<int64_t>(items[i].size()) + query_len);
    if (lengths.back() > limit)
      throw BadRequest(fmt::format("items[{}]", i),
                       fmt::format("items[{}] with the query (item_first: one prompt [item; query]) is {} tokens, more "
                                   "than a request holds: {} ({}, and the model's max_position_embeddings {})",
                                   i, lengths.back(), limit, pool_.limits().flags,
                                   engine_.model().config().max_position_embeddings));
  }
  check_queue_room(plan_cost(ScoringMode::Mis, 0, lengths, pool_.settings().request_tokens), ScoringMode::Mis, "items");
}

void Service::build_rerank(Job& job, const RerankRequest& request) const {
  tokenize_row(engine_, job, request.query, request.documents, rerank_items_field(request));
  job.readout = Readout::yes_no(engine_.answer_ids());
  job.label_by(engine_.artifact(), engine_.artifact().threshold);
  fit_long_items(job, request.query, request.documents, request.truncation, LongItems::Chunk, rerank_items_field(request));
  check_fits(job, rerank_items_field(request));
}

Started Service::label(std::string_view body, std::function<void()> on_done) {
  auto request = std::make_shared<const LabelRequest>(parse_label_request(body, options_.admission.max_items));
  if (std::optional<Reply> refused = foreign_model(request->common)) return answered(std::move(*refused));
  admit(*request, body.size(), options_.admission);
  auto job = new_job(request->common);
  const std::string version = engine_.artifact().version;
  return prepare(job, body.size(), "items", std::move(on_done), [this, request](Job& j) { build_label(j, *request); },
                 [request, job = job.get(), version, fingerprint = options_.fingerprint] {
    fold_windows(job->windows, job->window_tokens, job->window_stride, job->result);
    const RowResult& result = job->result;
    json scores = json::array(), labels = json::array();
    for (size_t i = 0; i < result.scores.size(); ++i) {
      scores.push_back(optional_json(result.scores[i]));
      labels.push_back(result.labels[i] ? json(*result.labels[i]) : json(nullptr));
    }
    json out = {{"scores", std::move(scores)}, {"labels", std::move(labels)},
                {"mode", std::string(scoring_mode_name(job->mode))},
                {"artifact", {{"version", version}, {"threshold", job->threshold}}},
                {"usage", usage_of(*job)}};
    if (!result.probabilities.empty()) {  // sift.json's calibration map applied to each score
      json probabilities = json::array();
      for (const std::optional<double>& p : result.probabilities) probabilities.push_back(optional_json(p));
      out["probabilities"] = std::move(probabilities);
    }
    if (job->threshold_on == ThresholdOn::Probability && job->mode != ScoringMode::Generate)
      out["artifact"]["threshold_on"] = "probability";
    out["usage"]["requests"] = result.requests;
    if (request->has_item_ids) out["item_ids"] = request->item_ids;
    if (!result.windows.empty()) {  // {"item": i, "spans", "best"} per item scored by windows
      json windows = json::array();
      for (const ItemWindows& item : result.windows) {
        json entry = {{"item", item.item}};
        entry.update(windows_json(item));
        windows.push_back(std::move(entry));
      }
      out["windows"] = std::move(windows);
    }
    if (!fingerprint.empty()) out["sift_fingerprint"] = fingerprint;  // /v1/models's: every answer names its labeler
    if (job->mode == ScoringMode::Generate) {
      const Generation generation = result.generation.value_or(Generation{});
      out["unparsed"] = generation.unparsed;
      out["usage"]["generated_tokens"] = generation.generated_tokens;
    }
    return Reply{200, std::move(out), {}, {}};
  });
}

Started Service::score(std::string_view body, std::function<void()> on_done) {
  auto request = std::make_shared<ScoreRequest>(parse_score_request(body, options_.admission.max_items));
  if (std::optional<Reply> refused = foreign_model(request->common)) return answered(std::move(*refused));
  admit(*request, body.size(), options_.admission);
  auto job = new_job(request->common);
  return prepare(job, body.size(), "items", std::move(on_done), [this, request](Job& j) { build_score(j, *request); },
                 [this, request, job = job.get(), model = model_named(request->common), fingerprint = options_.fingerprint] {
    json usage = usage_of(*job);
    usage["completion_tokens"] = 0;
    usage["total_tokens"] = usage["prompt_tokens"];
    json out = {{"scores", job->label_scores}, {"model", model}, {"object", "scoring"}, {"usage", std::move(usage)}};
    // Where the answer is P(YES) (the labeler's [yes, no] ids, softmax over them) and the
    // labeler has a calibration map: its probability per item, beside the raw scores.
    const CalibrationMap* map = engine_.artifact().calibration_map ? &*engine_.artifact().calibration_map : nullptr;
    const AnswerTokenIds ids = engine_.answer_ids();
    if (map && request->apply_softmax && request->label_token_ids == std::vector<int32_t>{ids.yes, ids.no}) {
      json probabilities = json::array();
      for (const std::vector<double>& row : job->label_scores) probabilities.push_back(map->apply(row[0]));
      out["probabilities"] = std::move(probabilities);
    }
    if (!fingerprint.empty()) out["sift_fingerprint"] = fingerprint;  // /v1/models's: every answer names its labeler
    return Reply{200, std::move(out), {}, {}};
  });
}

Started Service::rerank(std::string_view body, std::function<void()> on_done) {
  auto request = std::make_shared<const RerankRequest>(parse_rerank_request(body, options_.admission.max_items));
  if (std::optional<Reply> refused = foreign_model(request->common)) return answered(std::move(*refused));
  admit(*request, body.size(), options_.admission);
  auto job = new_job(request->common);
  return prepare(job, body.size(), rerank_items_field(*request), std::move(on_done),
                 [this, request](Job& j) { build_rerank(j, *request); },
                 [request, job = job.get(), model = model_named(request->common)] {
    fold_windows(job->windows, job->window_tokens, job->window_stride, job->result);
    return Reply{200, rerank_answer(*request, *job, model), {}, {}};
  });
}

Reply Service::models() const {
  // OpenAI's model object, then the labeler's own fields: its version, threshold, the answer
  // words with their token ids (the label_token_ids of /v1/score, yes first), the vocabulary
  // size, the fingerprint of its files and how its weights are held, by which a client (sift
  // --engine) knows it scores with the same labeler, bit for bit.
  // One object per served name (--served-model-name), each the whole description.
  const ScoringArtifact& artifact = engine_.artifact();
  const AnswerTokenIds ids = engine_.answer_ids();
  json model = {{"id", ""}, {"object", "model"}, {"owned_by", "sift"},
                {"version", artifact.version}, {"threshold", artifact.threshold},
                {"answers", {{"yes", {{"text", artifact.yes}, {"id", ids.yes}}}, {"no", {{"text", artifact.no}, {"id", ids.no}}}}},
                {"max_model_len", engine_.model().config().max_position_embeddings},
                {"vocab_size", engine_.model().config().vocab_size}};
  if (!options_.fingerprint.empty()) model["sift_fingerprint"] = options_.fingerprint;
  model["sift_weights"] = options_.weights;
  json data = json::array();
  for (const std::string& name : options_.model_names) {
    model["id"] = name;
    data.push_back(model);
  }
  return {200, {{"object", "list"}, {"data", std::move(data)}}, {}, {}};
}

}  // namespace sift::serve
