#pragma once
// Service: what each route does, apart from HTTP. A POST body is parsed (api_requests.h),
// rendered and tokenized on the calling HTTP thread, checked against the model (token ids
// in the vocabulary, every [query; item] within the request limit and the positions), queued
// as a Job, and waited for; the reply is the route's JSON.
//
//   400 malformed body or field (the field named)    429 queue full (Retry-After)
//   413 more prompt tokens than the whole queue holds (--max-queue-tokens)
//   504 deadline passed before the work started      500 the engine failed on the row
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scoring/loaded_labeler.h"
#include "serve/engine_loop.h"
#include "serve/metrics.h"
#include "serve/query_kv_cache.h"

namespace sift::serve {

struct Reply {
  int status = 200;
  nlohmann::json body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// {"object": "error", "message", "type", "code", "param", "error": {the same}} with the
// status: "param" names the field at fault (null when none); the top level is what SGLang's
// clients read, "error" what OpenAI's read.
Reply error_reply(int status, std::string_view message, std::string_view field = "");

struct ServiceOptions {
  std::string model_name;        // /v1/models id, echoed as "model"
  int64_t max_batch_tokens = 0;  // one forward call
  int64_t max_queue_tokens = 0;  // waiting tokens before 429
  int64_t kv_cache_bytes = 0;    // the query-KV cache's budget
  int threads = 0;               // the engine session's threads
};

// True once the client has closed its connection (its queued work is then dropped).
using ClientGone = std::function<bool()>;

class Service {
 public:
  Service(const LoadedLabeler& engine, const ServiceOptions& options, Metrics& metrics);

  Reply label(std::string_view body, const ClientGone& gone);
  Reply score(std::string_view body, const ClientGone& gone);
  Reply rerank(std::string_view body, const ClientGone& gone);
  Reply models() const;
  QueryKvCacheStats cache_stats() const { return cache_.stats(); }

  // Runs what is queued and stops the engine loop (after the HTTP server stopped).
  void drain() { loop_.close(); }

 private:
  // Queues the job and waits for it; on success returns nullopt and the job holds results.
  std::optional<Reply> run(const std::shared_ptr<Job>& job, const ClientGone& gone);
  void check_fits(const Job& job, std::string_view items_field) const;

  const LoadedLabeler& engine_;
  ServiceOptions options_;
  Metrics& metrics_;
  QueryKvCache cache_;
  EngineLoop loop_;
};

}  // namespace sift::serve
