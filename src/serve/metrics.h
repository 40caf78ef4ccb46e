#pragma once
// The server's counters, gauges and histograms, rendered in the Prometheus text format
// (version 0.0.4) for GET /metrics:
//
//   sift_requests_total{route,status}         counter   every answered request
//   sift_preparing_requests                   gauge     parsed, being rendered and tokenized (preparation.h)
//   sift_queue_requests, sift_queue_tokens    gauge     queued, not yet taken by the engine (tokens:
//                                                       what their plans run, scoring/plan_cost.h)
//   sift_batch_tokens, sift_batch_requests    histogram per forward call: new tokens, HTTP requests in it
//   sift_prefill_tokens_total                 counter   tokens run through the model
//   sift_labels_total                         counter   items scored
//   sift_queue_wait_seconds                   histogram arrival -> the engine takes the job
//   sift_request_duration_seconds{route}      histogram arrival -> response ready
//   sift_dropped_total{reason}                counter   queued work dropped: deadline | disconnect | shutdown
//   sift_connections                          gauge     open connections
//   sift_connections_refused_total{reason}    counter   max-connections | per-address | fd-limit
//   sift_connections_timed_out_total{phase}   counter   closed at a deadline: head | body | send
//   sift_kv_cache_{hits,misses,evictions}_total, sift_kv_cache_{bytes,entries}   the query-KV cache (scoring/prefix_cache.h)
//
// Thread-safe: one mutex (updates are a few per request or call, never per token).
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scoring/prefix_cache.h"

namespace sift::serve {

// Cumulative-bucket histogram: counts[i] = observations <= bounds[i] (the last, +Inf, all).
struct Histogram {
  std::vector<double> bounds;
  std::vector<int64_t> counts;  // bounds.size() + 1
  double sum = 0;
  int64_t count = 0;
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double value);
};

class Metrics {
 public:
  Metrics();

  void count_request(std::string_view route, int status, double seconds);
  void preparing_changed(int64_t requests_delta);
  void queue_changed(int64_t requests_delta, int64_t tokens_delta);
  void count_call(int64_t new_tokens, int64_t requests);
  void count_work(int64_t prefill_tokens, int64_t labels);
  void observe_queue_wait(double seconds);
  void count_dropped(std::string_view reason);
  void connections_changed(int64_t delta);
  void count_refused(std::string_view reason);
  void count_timed_out(std::string_view phase);

  std::string render(const PrefixCacheStats& cache) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, int64_t> requests_;
  std::map<std::string, Histogram> durations_;  // by route
  std::map<std::string, int64_t> dropped_, refused_, timed_out_;
  int64_t connections_ = 0;
  int64_t preparing_requests_ = 0, queue_requests_ = 0, queue_tokens_ = 0, prefill_tokens_ = 0, labels_ = 0;
  Histogram batch_tokens_, batch_requests_, queue_wait_;
};

}  // namespace sift::serve
