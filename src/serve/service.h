#pragma once
// Service: what each POST route does, apart from HTTP. A body is parsed (api_requests.h),
// admitted by size (admission.h), rendered and tokenized, checked against the model (token ids
// in the vocabulary, every [query; item] within --max-batch-tokens and the positions) and
// queued as a Job for the engines (engine_pool.h: the scheduler's queue). The caller never
// waits: start() returns at once with either the answer or the queued job, whose on_done fires
// (on a worker's thread) when an engine has finished it; answer() then gives the route's JSON.
//
//   400 malformed body or field (the field named)    429 queue full (Retry-After)
//   404 "model" names another model than the one served (model_not_found; absent is fine)
//   413 over a size limit (admission.h), or more prompt tokens than the whole queue holds
//       (--max-queue-tokens)
//   504 deadline passed before the work started      500 the engine failed on the row
//   499 the client went away while the job was queued (nobody reads it; counted)
//
// Parsing and tokenizing run on the caller's thread (an HTTP thread), bounded by the body
// limit and admission; only the model runs on the engines' workers.
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "scoring/loaded_labeler.h"
#include "serve/admission.h"
#include "serve/api_requests.h"
#include "serve/engine_pool.h"
#include "serve/job.h"
#include "serve/metrics.h"
#include "serve/reply.h"

namespace sift::serve {

struct ServiceOptions {
  std::string model_name;        // /v1/models id, echoed as "model"
  std::string fingerprint;       // /v1/models sift_fingerprint: the labeler's files (io/content_hash.h)
  std::string weights = "auto";  // /v1/models sift_weights: how its matrices are held (--weights)
  int64_t max_batch_tokens = 0;  // one forward call, and one request
  int64_t max_queue_tokens = 0;  // waiting tokens before 429
  int64_t kv_cache_bytes = 0;    // the query-KV cache's budget
  int threads = 0;               // compute threads, split among the workers running
  int workers = 1;               // engines: sessions on the one model
  AdmissionLimits admission;     // items, scores, response bytes
};

// A POST request on its way: answered at once (`reply`: an error, or nothing to score), or
// queued (`job`, answered by Service::answer once job->on_done has fired).
struct Started {
  std::optional<Reply> reply;
  std::shared_ptr<Job> job;
  std::function<Reply()> answer;  // the route's reply from the finished job
};

// Why a queued job is given up before the engine takes it (the sift_dropped_total reason).
enum class GiveUp { Deadline, Disconnect, Shutdown };

class Service {
 public:
  Service(const LoadedLabeler& engine, const ServiceOptions& options, Metrics& metrics);

  // Each throws BadRequest (400, or 413 over a size limit). `on_done` is the queued job's
  // on_done (see Started): it must only hand the answer over, never block.
  Started label(std::string_view body, std::function<void()> on_done);
  Started score(std::string_view body, std::function<void()> on_done);
  Started rerank(std::string_view body, std::function<void()> on_done);
  Reply models() const;
  PrefixCacheStats cache_stats() const { return pool_.cache_stats(); }

  // The reply of a finished job: its error (504, 400, 500), or started.answer().
  static Reply answer(const Started& started);
  // Drops a queued job (its deadline passed, its client went away, the server is stopping):
  // the reply to send (504, 499, 503) when the job was still queued and is now never run;
  // nullopt when the engine already has it (its on_done will fire).
  std::optional<Reply> give_up(Job& job, GiveUp why);

  // Runs what is queued (and not given up) and stops the engines (after the HTTP side stopped).
  void drain() { pool_.close(); }

 private:
  Started queue(std::shared_ptr<Job> job, std::function<void()> on_done, std::function<Reply()> answer);
  void check_fits(const Job& job, std::string_view items_field) const;
  // The tokens one [query; item] may hold: the request and call limits, the model's positions.
  int64_t request_limit() const;
  // The job's prompt cut to fit a request as `sift score --truncate` cuts it (400 when it cannot).
  void truncate_job(Job& job, std::string_view query, std::span<const std::string> items,
                    const TruncateFields& truncation) const;
  // The 404 for a request whose "model" is not options_.model_name (the /v1/models id).
  std::optional<Reply> foreign_model(const CommonFields& common) const;

  const LoadedLabeler& engine_;
  ServiceOptions options_;
  Metrics& metrics_;
  EnginePool pool_;
};

}  // namespace sift::serve
