#include "serve/service.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/error.h"
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

// The row's prompt: the query once, then every item (mode mis's [query; item_1; ...; item_n]).
int64_t prompt_tokens(const Job& job) {
  int64_t n = static_cast<int64_t>(job.query.size());
  for (const TokenIds& item : job.items) n += static_cast<int64_t>(item.size());
  return n;
}

// OpenAI's usage: prompt_tokens is the whole prompt, however much of it the query-KV cache
// served; prompt_tokens_details.cached_tokens is that part: the prompt less what was run,
//   run = result.prefill_tokens - result.cached_tokens   (the scheduler's: its requests' tokens
//                                                         less the query tokens reused)
// so the query's tokens when its K/V was reused, 0 when it ran (once, or in each of a split
// row's calls with the cache off). The engine's own modes (the baselines) run their prompts
// whole: their prompt is what they prefilled, nothing cached. Prefill work = prompt_tokens -
// cached_tokens.
json usage_of(const Job& job) {
  const bool mis = job.mode == ScoringMode::Mis;
  const int64_t prompt = mis ? prompt_tokens(job) : job.result.prefill_tokens;
  const int64_t run = job.result.prefill_tokens - job.result.cached_tokens;
  const int64_t cached = mis ? std::max<int64_t>(0, prompt - run) : 0;
  json usage = {{"prompt_tokens", prompt}, {"prompt_tokens_details", {{"cached_tokens", cached}}}};
  if (job.truncated_tokens > 0) usage["truncated_tokens"] = job.truncated_tokens;  // as sift score's usage
  return usage;
}

// The job of a text row scored with the labeler's templates (label, rerank).
std::shared_ptr<Job> templated_job(const LoadedLabeler& engine, const std::string& query,
                                   const std::vector<std::string>& items, const char* items_field) {
  auto job = std::make_shared<Job>();
  try {
    job->query = engine.prompts().query_tokens(query);
  } catch (const Error& e) {
    throw BadRequest("query", fmt::format("query: {}", e.what()));
  }
  for (size_t i = 0; i < items.size(); ++i) {
    try {
      job->items.push_back(engine.prompts().item_tokens(items[i]));
    } catch (const Error& e) {
      throw BadRequest(fmt::format("{}[{}]", items_field, i), fmt::format("{}[{}]: {}", items_field, i, e.what()));
    }
  }
  job->readout = Readout::yes_no(engine.answer_ids());
  job->threshold = engine.artifact().threshold;
  return job;
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

// The /v1/score parts cut to fit `limit` as "truncate" says (scoring/truncation.h's rule over
// the client's parts: Lq = BOS + query, L_i = item; every Lq + L_i <= limit, whichever order
// item_first puts them in); returns the tokens cut. 400 when no cut can make them fit.
int64_t truncate_parts(const Tokenizer& tokenizer, const ScoreRequest& request, int64_t limit, int64_t bos,
                       TokenIds& query, std::vector<TokenIds>& items) {
  const Truncate truncate = request.truncation.truncate;
  const TruncationDirection direction = request.truncation.direction;
  const int64_t query_len = bos + static_cast<int64_t>(query.size());
  int64_t cut = 0;
  if (truncate == Truncate::Query) {
    int64_t longest_item = 0;
    for (const TokenIds& item : items) longest_item = std::max(longest_item, static_cast<int64_t>(item.size()));
    if (query_len + longest_item <= limit) return 0;
    const int64_t target = limit - longest_item - bos;
    if (target < 0)
      throw BadRequest("truncate", fmt::format("truncate query: the longest item ({} tokens) leaves no room for the query "
                                               "within the request limit of {}", longest_item, limit));
    TokenIds kept = cut_part(tokenizer, request.query, query, target, direction, "query");
    cut = static_cast<int64_t>(query.size() - kept.size());
    query = std::move(kept);
  } else if (truncate == Truncate::Items) {
    const int64_t target = limit - query_len;
    for (size_t i = 0; i < items.size(); ++i) {
      if (query_len + static_cast<int64_t>(items[i].size()) <= limit) continue;
      if (target <= 0)
        throw BadRequest("truncate", fmt::format("truncate items: the query ({} tokens) leaves no tokens of the request "
                                                 "limit of {} for an item", query_len, limit));
      TokenIds kept = cut_part(tokenizer, request.items[i], items[i], target, direction, fmt::format("items[{}]", i));
      cut += static_cast<int64_t>(items[i].size() - kept.size());
      items[i] = std::move(kept);
    }
  }
  return cut;
}

Started answered(Reply reply) {
  Started started;
  started.reply = std::move(reply);
  return started;
}

void set_deadline(Job& job, const CommonFields& common) {
  if (common.timeout_ms) job.deadline = job.arrived + std::chrono::milliseconds(*common.timeout_ms);
}

}  // namespace

Service::Service(const LoadedLabeler& engine, const ServiceOptions& options, Metrics& metrics)
    : engine_(engine),
      options_(options),
      metrics_(metrics),
      pool_(engine,
            {.max_batch_tokens = options.max_batch_tokens, .max_queue_tokens = options.max_queue_tokens,
             .kv_cache_bytes = options.kv_cache_bytes, .threads = options.threads, .workers = options.workers},
            metrics_) {}

void Service::check_fits(const Job& job, std::string_view items_field) const {
  try {
    check_row_fits(engine_.model().config(), {job.query, job.items}, pool_.limits());
  } catch (const Error& e) {
    throw BadRequest(std::string(items_field), e.what());
  }
}

Started Service::queue(std::shared_ptr<Job> job, std::function<void()> on_done, std::function<Reply()> answer) {
  if (job->items.empty()) return answered(answer());  // nothing to score
  job->cost = job_prompt_tokens(*job);
  if (job->cost > options_.max_queue_tokens)  // could never be admitted: not "retry later"
    return answered(error_reply(413, fmt::format("the request has {} prompt tokens, more than --max-queue-tokens {}",
                                                 job->cost, options_.max_queue_tokens), "items"));
  job->on_done = [done = std::move(on_done)](ScoringJob&) { done(); };
  if (!pool_.submit(job))
    return answered(retry_reply(429, fmt::format("the queue holds more than --max-queue-tokens {} prompt tokens; retry "
                                                 "later", options_.max_queue_tokens)));
  return {.reply = std::nullopt, .job = std::move(job), .answer = std::move(answer)};
}

Reply Service::answer(const Started& started) {
  const Job& job = *started.job;
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
  const PlanLimits& limits = pool_.limits();
  return std::min({limits.max_request_tokens, limits.max_call_tokens, engine_.model().config().max_position_embeddings});
}

void Service::truncate_job(Job& job, std::string_view query, std::span<const std::string> items,
                           const TruncateFields& truncation) const {
  TokenizedRow row{job.query, job.items, {}, 0};
  try {
    truncate_to_fit(engine_.prompts(), query, items, request_limit(), truncation.truncate, truncation.direction, row);
  } catch (const Error& e) {
    throw BadRequest("truncate", fmt::format("truncate: {}", e.what()));
  }
  job.query = std::move(row.query);
  job.items = std::move(row.items);
  job.truncated_tokens = row.truncated_tokens;
}

std::optional<Reply> Service::foreign_model(const CommonFields& common) const {
  if (!common.model || *common.model == options_.model_name) return std::nullopt;
  return model_not_found_reply(*common.model, options_.model_name);
}

Started Service::label(std::string_view body, std::function<void()> on_done) {
  auto request = std::make_shared<const LabelRequest>(parse_label_request(body, options_.admission.max_items));
  if (std::optional<Reply> refused = foreign_model(request->common)) return answered(std::move(*refused));
  admit(*request, body.size(), options_.admission);
  std::shared_ptr<Job> job = templated_job(engine_, request->query, request->items, "items");
  set_deadline(*job, request->common);
  job->mode = request->mode;
  if (request->truncation.truncate != Truncate::None) truncate_job(*job, request->query, request->items, request->truncation);
  if (request->threshold) job->threshold = *request->threshold;
  if (job->mode == ScoringMode::Generate) {
    job->query_text = request->query;
    job->item_texts = request->items;
  } else {
    check_fits(*job, "items");
  }
  const std::string version = engine_.artifact().version;
  return queue(job, std::move(on_done), [request, job = job.get(), version] {
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
    out["usage"]["requests"] = result.requests;
    if (request->has_item_ids) out["item_ids"] = request->item_ids;
    if (job->mode == ScoringMode::Generate) {
      out["unparsed"] = result.unparsed;
      out["usage"]["generated_tokens"] = result.generated_tokens;
    }
    return Reply{200, std::move(out), {}, {}};
  });
}

Started Service::score(std::string_view body, std::function<void()> on_done) {
  const ScoreRequest request = parse_score_request(body, options_.admission.max_items);
  if (std::optional<Reply> refused = foreign_model(request.common)) return answered(std::move(*refused));
  admit(request, body.size(), options_.admission);
  const int64_t vocab_size = engine_.model().config().vocab_size;
  check_ids(request.label_token_ids, vocab_size, "label_token_ids");
  auto job = std::make_shared<Job>();
  set_deadline(*job, request.common);
  job->readout = {Readout::Kind::LabelProbabilities, request.label_token_ids, request.apply_softmax};

  // The prompt parts as ids: text is encoded as the client rendered it (the query with the
  // tokenizer's BOS, if it adds one); ids are taken as they are.
  const Tokenizer& tokenizer = engine_.tokenizer();
  const bool text = std::holds_alternative<std::string>(request.query);
  const TokenIds bos = text ? tokenizer.prefix_special_ids() : TokenIds{};
  TokenIds query = text ? encode_rendered(tokenizer, std::get<std::string>(request.query), "query")
                        : std::get<TokenIds>(request.query);
  check_ids(query, vocab_size, "query");
  std::vector<TokenIds> items;
  for (size_t i = 0; i < request.items.size(); ++i) {
    const std::string field = fmt::format("items[{}]", i);
    items.push_back(text ? encode_rendered(tokenizer, std::get<std::string>(request.items[i]), field)
                         : std::get<TokenIds>(request.items[i]));
    check_ids(items.back(), vocab_size, field);
  }
  if (request.truncation.truncate != Truncate::None)
    job->truncated_tokens = truncate_parts(tokenizer, request, request_limit(), static_cast<int64_t>(bos.size()), query, items);
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string field = fmt::format("items[{}]", i);
    TokenIds item = std::move(items[i]);
    // item_first: the prompt is [bos; item; query], a causal prompt of its own (no shared
    // part to reuse), read at its last token.
    if (request.item_first) item = concat(concat(bos, item), query);
    if (item.empty()) throw BadRequest(field, fmt::format("{} has no tokens: the score is read at an item's last token", field));
    job->items.push_back(std::move(item));
  }
  if (!request.item_first) job->query = concat(bos, query);
  check_fits(*job, "items");
  return queue(job, std::move(on_done), [job = job.get(), model = options_.model_name] {
    json usage = usage_of(*job);
    usage["completion_tokens"] = 0;
    usage["total_tokens"] = usage["prompt_tokens"];
    json out = {{"scores", job->label_scores}, {"model", model}, {"object", "scoring"}, {"usage", std::move(usage)}};
    return Reply{200, std::move(out), {}, {}};
  });
}

Started Service::rerank(std::string_view body, std::function<void()> on_done) {
  auto request = std::make_shared<const RerankRequest>(parse_rerank_request(body, options_.admission.max_items));
  if (std::optional<Reply> refused = foreign_model(request->common)) return answered(std::move(*refused));
  admit(*request, body.size(), options_.admission);
  std::shared_ptr<Job> job = templated_job(engine_, request->query, request->documents, "documents");
  set_deadline(*job, request->common);
  check_fits(*job, "documents");
  return queue(job, std::move(on_done), [request, job = job.get(), model = options_.model_name] {
    // Most relevant first; ties keep input order.
    std::vector<size_t> order(request->documents.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return *job->result.scores[a] > *job->result.scores[b]; });
    if (request->top_n && static_cast<size_t>(*request->top_n) < order.size())
      order.resize(static_cast<size_t>(*request->top_n));
    json results = json::array();
    for (size_t index : order) {
      json result = {{"index", index}, {"relevance_score", *job->result.scores[index]}};
      if (request->return_documents) result["document"] = {{"text", request->documents[index]}};
      results.push_back(std::move(result));
    }
    json usage = usage_of(*job);
    usage["total_tokens"] = usage["prompt_tokens"];
    return Reply{200, {{"results", std::move(results)}, {"model", model}, {"usage", std::move(usage)}}, {}, {}};
  });
}

Reply Service::models() const {
  // OpenAI's model object, then the labeler's own fields: its version, threshold, the answer
  // words with their token ids (the label_token_ids of /v1/score, yes first), the vocabulary
  // size, the fingerprint of its files and how its weights are held, by which a client (sift
  // --engine) knows it scores with the same labeler, bit for bit.
  const ScoringArtifact& artifact = engine_.artifact();
  const AnswerTokenIds ids = engine_.answer_ids();
  json model = {{"id", options_.model_name}, {"object", "model"}, {"owned_by", "sift"},
                {"version", artifact.version}, {"threshold", artifact.threshold},
                {"answers", {{"yes", {{"text", artifact.yes}, {"id", ids.yes}}}, {"no", {{"text", artifact.no}, {"id", ids.no}}}}},
                {"max_model_len", engine_.model().config().max_position_embeddings},
                {"vocab_size", engine_.model().config().vocab_size}};
  if (!options_.fingerprint.empty()) model["sift_fingerprint"] = options_.fingerprint;
  model["sift_weights"] = options_.weights;
  return {200, {{"object", "list"}, {"data", json::array({model})}}, {}, {}};
}

}  // namespace sift::serve
