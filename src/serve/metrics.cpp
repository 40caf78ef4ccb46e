#include "serve/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <iterator>

namespace sift::serve {
namespace {

const std::vector<double> kSecondsBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
const std::vector<double> kTokenBuckets = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
const std::vector<double> kRequestBuckets = {1, 2, 4, 8, 16, 32, 64, 128};

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

// A histogram's _bucket, _sum and _count lines; `labels` is "" or `key="value",`.
void histogram_lines(std::string& out, std::string_view name, std::string_view labels, const Histogram& h) {
  for (size_t i = 0; i <= h.bounds.size(); ++i) {
    const std::string le = i < h.bounds.size() ? fmt::format("{}", h.bounds[i]) : "+Inf";
    fmt::format_to(std::back_inserter(out), "{}_bucket{{{}le=\"{}\"}} {}\n", name, labels, le, h.counts[i]);
  }
  const std::string bare = labels.empty() ? "" : fmt::format("{{{}}}", labels.substr(0, labels.size() - 1));
  fmt::format_to(std::back_inserter(out), "{}_sum{} {}\n{}_count{} {}\n", name, bare, h.sum, name, bare, h.count);
}

// One counter line per known label value (0 when never counted).
void labelled_counts(std::string& out, std::string_view name, std::string_view label,
                     std::initializer_list<const char*> values, const std::map<std::string, int64_t>& counts) {
  for (const char* value : values) {
    auto it = counts.find(value);
    fmt::format_to(std::back_inserter(out), "{}{{{}=\"{}\"}} {}\n", name, label, value, it == counts.end() ? 0 : it->second);
  }
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds(std::move(upper_bounds)), counts(bounds.size() + 1, 0) {}

void Histogram::observe(double value) {
  const auto first = std::lower_bound(bounds.begin(), bounds.end(), value) - bounds.begin();
  for (size_t i = static_cast<size_t>(first); i < counts.size(); ++i) ++counts[i];
  sum += value;
  ++count;
}

Metrics::Metrics() : batch_tokens_(kTokenBuckets), batch_requests_(kRequestBuckets), queue_wait_(kSecondsBuckets) {}

void Metrics::count_request(std::string_view route, int status, double seconds) {
  std::lock_guard lock(mutex_);
  ++requests_[{std::string(route), status}];
  durations_.try_emplace(std::string(route), kSecondsBuckets).first->second.observe(seconds);
}

void Metrics::preparing_changed(int64_t requests_delta) {
  std::lock_guard lock(mutex_);
  preparing_requests_ += requests_delta;
}

void Metrics::queue_changed(int64_t requests_delta, int64_t tokens_delta) {
  std::lock_guard lock(mutex_);
  queue_requests_ += requests_delta;
  queue_tokens_ += tokens_delta;
}

void Metrics::count_call(int64_t new_tokens, int64_t requests) {
  std::lock_guard lock(mutex_);
  batch_tokens_.observe(static_cast<double>(new_tokens));
  batch_requests_.observe(static_cast<double>(requests));
}

void Metrics::count_work(int64_t prefill_tokens, int64_t labels) {
  std::lock_guard lock(mutex_);
  prefill_tokens_ += prefill_tokens;
  labels_ += labels;
}

void Metrics::observe_queue_wait(double seconds) {
  std::lock_guard lock(mutex_);
  queue_wait_.observe(seconds);
}

void Metrics::count_dropped(std::string_view reason) {
  std::lock_guard lock(mutex_);
  ++dropped_[std::string(reason)];
}

void Metrics::connections_changed(int64_t delta) {
  std::lock_guard lock(mutex_);
  connections_ += delta;
}

void Metrics::count_refused(std::string_view reason) {
  std::lock_guard lock(mutex_);
  ++refused_[std::string(reason)];
}

void Metrics::count_timed_out(std::string_view phase) {
  std::lock_guard lock(mutex_);
  ++timed_out_[std::string(phase)];
}

std::string Metrics::render(const PrefixCacheStats& cache) const {
  std::lock_guard lock(mutex_);
  std::string out;
  auto line = [&out](std::string_view name, auto value) { fmt::format_to(std::back_inserter(out), "{} {}\n", name, value); };

  header(out, "sift_requests_total", "counter", "HTTP requests answered, by route and status");
  for (const auto& [key, n] : requests_)
    fmt::format_to(std::back_inserter(out), "sift_requests_total{{route=\"{}\",status=\"{}\"}} {}\n", key.first, key.second, n);
  header(out, "sift_request_duration_seconds", "histogram", "arrival to response, by route");
  for (const auto& [route, h] : durations_) histogram_lines(out, "sift_request_duration_seconds", fmt::format("route=\"{}\",", route), h);
  header(out, "sift_preparing_requests", "gauge", "requests being rendered and tokenized, or waiting for it");
  line("sift_preparing_requests", preparing_requests_);
  header(out, "sift_queue_requests", "gauge", "requests queued for the engine");
  line("sift_queue_requests", queue_requests_);
  header(out, "sift_queue_tokens", "gauge", "tokens the plans of the queued requests run");
  line("sift_queue_tokens", queue_tokens_);
  header(out, "sift_queue_wait_seconds", "histogram", "arrival to the engine taking the request");
  histogram_lines(out, "sift_queue_wait_seconds", "", queue_wait_);
  header(out, "sift_batch_tokens", "histogram", "new tokens per forward call");
  histogram_lines(out, "sift_batch_tokens", "", batch_tokens_);
  header(out, "sift_batch_requests", "histogram", "HTTP requests per forward call");
  histogram_lines(out, "sift_batch_requests", "", batch_requests_);
  header(out, "sift_prefill_tokens_total", "counter", "tokens run through the model");
  line("sift_prefill_tokens_total", prefill_tokens_);
  header(out, "sift_labels_total", "counter", "items scored");
  line("sift_labels_total", labels_);
  header(out, "sift_dropped_total", "counter", "queued requests dropped before compute, by reason");
  labelled_counts(out, "sift_dropped_total", "reason", {"deadline", "disconnect", "shutdown"}, dropped_);
  header(out, "sift_connections", "gauge", "open connections");
  line("sift_connections", connections_);
  header(out, "sift_connections_refused_total", "counter", "connections refused at accept, by the limit they were over");
  labelled_counts(out, "sift_connections_refused_total", "reason", {"max-connections", "per-address", "fd-limit"}, refused_);
  header(out, "sift_connections_timed_out_total", "counter", "connections closed at a deadline, by what was late");
  labelled_counts(out, "sift_connections_timed_out_total", "phase", {"head", "body", "send"}, timed_out_);
  header(out, "sift_kv_cache_hits_total", "counter", "query-KV cache hits");
  line("sift_kv_cache_hits_total", cache.hits);
  header(out, "sift_kv_cache_misses_total", "counter", "query-KV cache misses");
  line("sift_kv_cache_misses_total", cache.misses);
  header(out, "sift_kv_cache_evictions_total", "counter", "query-KV cache evictions");
  line("sift_kv_cache_evictions_total", cache.evictions);
  header(out, "sift_kv_cache_bytes", "gauge", "bytes of K/V held by the query-KV cache");
  line("sift_kv_cache_bytes", cache.bytes);
  header(out, "sift_kv_cache_entries", "gauge", "queries held by the query-KV cache");
  line("sift_kv_cache_entries", cache.entries);
  return out;
}

}  // namespace sift::serve
