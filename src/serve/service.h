#pragma once
// Service: what each POST route does, apart from HTTP. A body is parsed (api_requests.h: its
// items counted as it is read) and admitted by size (admission.h) on the caller's thread (an
// HTTP thread); a preparation thread (preparation.h) then renders and tokenizes it, checks it
// against the model (token ids in the vocabulary, every [query; item] within --max-batch-tokens
// and the positions), charges it what its plan runs in its mode (scoring/plan_cost.h) and
// queues it as a Job for the engines (engine_pool.h: the scheduler's queue). The caller never
// waits: start() returns at once with either the answer or the job, whose on_done fires (on a
// worker's or a preparation thread) once it is finished, run or refused; answer() then gives
// the route's JSON.
//
//   400 malformed body or field (the field named)    429 queue full (Retry-After)
//   404 "model" names none of the served names (model_not_found; absent is fine)
//   413 over a size limit (admission.h), or a plan that runs more tokens than the whole queue
//       holds (--max-queue-tokens)
//   504 deadline passed before the work started      500 the engine failed on the row
//   499 the client went away while the job was queued (nobody reads it; counted)
//
// What the queue holds of a job, and a baseline's usage, is what its plan runs: mode
// independent runs the query once per item, prefix one call per item, generate a prompt and
// then up to its answer budget decoded; mis the query once per request.
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scoring/loaded_labeler.h"
#include "serve/admission.h"
#include "serve/api_requests.h"
#include "serve/engine_pool.h"
#include "serve/job.h"
#include "serve/metrics.h"
#include "serve/preparation.h"
#include "serve/reply.h"

namespace sift::serve {

struct ServiceOptions {
  // The /v1/models ids a request may name as "model" (--served-model-name, else the labeler
  // directory's name), at least one; an answer echoes the name its request gave, else the first.
  std::vector<std::string> model_names;
  std::string fingerprint;       // /v1/models sift_fingerprint: the labeler's files (io/content_hash.h)
  std::string weights = "auto";  // /v1/models sift_weights: how its matrices are held (--weights)
  int64_t max_batch_tokens = 0;  // one forward call, and one request
  int64_t max_queue_tokens = 0;  // waiting tokens before 429
  int workers = 1;               // engines the runtime makes: sessions on the one model
  int prepare_threads = 4;       // threads that render and tokenize requests (preparation.h)
  AdmissionLimits admission;     // items, scores, response bytes
  // A long item (scoring/long_items.h): --long-items, the default of every route (unset: chunk
  // for /v1/rerank, error for /v1/label and /v1/score; a request's "long_items" overrides it,
  // and /v1/score never chunks), --max-item-tokens, --window-stride, --max-windows.
  std::optional<LongItems> long_items;
  std::optional<int64_t> max_item_tokens, window_stride;
  int64_t max_windows = kDefaultMaxWindows;
};

// Body bytes of requests waiting for a preparation thread at most: past it, 429.
inline constexpr int64_t kMaxPreparingBytes = int64_t{64} << 20;

// A POST request on its way: answered at once (`reply`: an error found while parsing), or
// started (`job`, answered by Service::answer once job->on_done has fired).
struct Started {
  std::optional<Reply> reply;
  std::shared_ptr<Job> job;
  std::function<Reply()> answer;  // the route's reply from the finished job
};

// Why a queued job is given up before the engine takes it (the sift_dropped_total reason).
enum class GiveUp { Deadline, Disconnect, Shutdown };

class Service {
 public:
  // `runtime` (the labeler, its query-KV cache and compute threads) outlives the service.
  Service(Runtime& runtime, const ServiceOptions& options, Metrics& metrics);

  // Each throws BadRequest (400, or 413 over a size limit). `on_done` is the queued job's
  // on_done (see Started): it must only hand the answer over, never block.
  Started label(std::string_view body, std::function<void()> on_done);
  Started score(std::string_view body, std::function<void()> on_done);
  Started rerank(std::string_view body, std::function<void()> on_done);
  Reply models() const;
  PrefixCacheStats cache_stats() const { return pool_.cache_stats(); }

  // The reply of a finished job: its refusal or error (400, 413, 429, 504, 500), or
  // started.answer().
  static Reply answer(const Started& started);
  // Drops a job not started (its deadline passed, its client went away, the server is
  // stopping): the reply to send (504, 499, 503) when it was being prepared or queued and is
  // now never run; nullopt when the engine already has it (its on_done will fire).
  std::optional<Reply> give_up(Job& job, GiveUp why);

  // Prepares and runs what waits (and was not given up) and stops the engines (after the HTTP
  // side stopped).
  void drain() {
    preparation_.close();
    pool_.close();
  }

 private:
  using Build = std::function<void(Job&)>;  // renders, tokenizes, checks: throws BadRequest

  // Starts the request's job (its deadline set): `build` and queue() run on a preparation
  // thread; `answer` is the route's reply from the finished job. 429 when too much waits.
  Started prepare(std::shared_ptr<Job> job, size_t body_bytes, const char* items_field, std::function<void()> on_done,
                  Build build, std::function<Reply()> answer);
  // On a preparation thread: builds the job, then queues it, or finishes it refused.
  void build_and_queue(const std::shared_ptr<Job>& job, const Build& build, const char* items_field);
  // Charges the job what its plan runs and queues it; a job with nothing to score, or that
  // finds the queue full (429), is finished here. Throws BadRequest (413) past --max-queue-tokens.
  void queue(const std::shared_ptr<Job>& job, const char* items_field);
  // Finishes a job the engines never get: `refusal` is its reply (none: nothing to score).
  static void finish_here(Job& job, std::optional<Reply> refusal);
  // 413 when `plan` runs more tokens than the whole queue holds (--max-queue-tokens).
  void check_queue_room(const PlanCost& plan, ScoringMode mode, std::string_view items_field) const;

  void build_label(Job& job, const LabelRequest& request) const;
  void build_score(Job& job, ScoreRequest& request) const;
  void build_rerank(Job& job, const RerankRequest& request) const;
  // item_first prompts ([bos; item; query] each): their lengths and the request's plan checked
  // before any is built, so a long query is never copied into thousands of items first.
  void check_item_first(int64_t query_len, const std::vector<TokenIds>& items) const;
  void check_fits(const Job& job, std::string_view items_field) const;
  // The tokens one [query; item] may hold: the request and call limits, the model's positions.
  int64_t request_limit() const;
  // The scoring options a request's fields and the server's flags make: "truncate" and
  // "long_items" over --long-items (else `route_default`), and the window sizes.
  ScoringOptions long_item_options(ScoringMode mode, const TruncateFields& truncation, LongItems route_default) const;
  // The job's query cut as "truncate": "query" says, then its long items cut, chunked into
  // windows or refused as the long-item rule says (scoring/long_items.h): 400 naming the item.
  void fit_long_items(Job& job, std::string_view query, std::span<const std::string> items,
                      const TruncateFields& truncation, LongItems route_default, const char* items_field) const;
  // The 404 for a request whose "model" is none of options_.model_names (the /v1/models ids).
  std::optional<Reply> foreign_model(const CommonFields& common) const;
  // The name an answer gives as "model": the request's, else the first served name.
  const std::string& model_named(const CommonFields& common) const;

  const LoadedLabeler& engine_;
  ServiceOptions options_;
  Metrics& metrics_;
  EnginePool pool_;
  Preparation preparation_;  // last: its threads stop before what they use goes
};

}  // namespace sift::serve
