// The server's metrics registry (serve/metrics.h) through what /metrics serves: every
// histogram is a valid Prometheus histogram (bounds ascending, buckets cumulative with
// le inclusive, the +Inf bucket equal to _count, _sum the sum of what was observed), and the
// counters and gauges say what was counted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "prometheus_text.h"
#include "serve/metrics.h"

namespace sift::serve {
namespace {

using testing::histograms;
using testing::sample;

double bound_of(const std::string& le) {
  return le == "+Inf" ? std::numeric_limits<double>::infinity() : std::stod(le);
}

// The series is a consistent histogram of exactly `observed`.
void expect_histogram_of(const testing::HistogramSeries& series, const std::vector<double>& observed,
                         const std::string& what) {
  ASSERT_FALSE(series.buckets.empty()) << what;
  EXPECT_EQ(series.buckets.back().first, "+Inf") << what;
  double previous_bound = -std::numeric_limits<double>::infinity();
  for (const auto& [le, count] : series.buckets) {
    const double bound = bound_of(le);
    EXPECT_GT(bound, previous_bound) << what << ": bounds ascend";
    previous_bound = bound;
    const auto within = std::count_if(observed.begin(), observed.end(), [&](double x) { return x <= bound; });
    EXPECT_EQ(count, static_cast<double>(within)) << what << ": bucket le=" << le;
  }
  ASSERT_TRUE(series.count && series.sum) << what;
  EXPECT_EQ(*series.count, series.buckets.back().second) << what << ": +Inf = _count";
  EXPECT_EQ(*series.count, static_cast<double>(observed.size())) << what;
  EXPECT_DOUBLE_EQ(*series.sum, std::accumulate(observed.begin(), observed.end(), 0.0)) << what;
}

TEST(Metrics, HistogramsAreCumulativeWithInfEqualToCount) {
  Metrics metrics;
  // Values on bucket bounds (le is inclusive), between them, and past the last.
  const std::vector<double> label_seconds = {0.001, 0.005, 0.005, 0.0051, 0.3, 2.5, 100};
  const std::vector<double> score_seconds = {0.02};
  const std::vector<double> waits = {0, 0.01, 0.7, 31};
  const std::vector<double> call_tokens = {64, 65, 9000, 1e6}, call_requests = {1, 3, 3, 200};
  for (double s : label_seconds) metrics.count_request("/v1/label", 200, s);
  for (double s : score_seconds) metrics.count_request("/v1/score", 400, s);
  for (double s : waits) metrics.observe_queue_wait(s);
  for (size_t i = 0; i < call_tokens.size(); ++i)
    metrics.count_call(static_cast<int64_t>(call_tokens[i]), static_cast<int64_t>(call_requests[i]));

  const auto series = histograms(metrics.render({}));
  ASSERT_EQ(series.size(), 5u);
  expect_histogram_of(series.at("sift_request_duration_seconds{route=\"/v1/label\"}"), label_seconds, "label");
  expect_histogram_of(series.at("sift_request_duration_seconds{route=\"/v1/score\"}"), score_seconds, "score");
  expect_histogram_of(series.at("sift_queue_wait_seconds{}"), waits, "queue wait");
  expect_histogram_of(series.at("sift_batch_tokens{}"), call_tokens, "batch tokens");
  expect_histogram_of(series.at("sift_batch_requests{}"), call_requests, "batch requests");
}

TEST(Metrics, AnEmptyHistogramIsAllZeros) {
  const auto series = histograms(Metrics().render({}));
  ASSERT_EQ(series.size(), 3u);  // no route has been answered yet
  for (const auto& [name, s] : series) expect_histogram_of(s, {}, name);
}

TEST(Metrics, CountersAndGaugesSayWhatWasCounted) {
  Metrics metrics;
  metrics.count_request("/v1/label", 200, 0.1);
  metrics.count_request("/v1/label", 200, 0.1);
  metrics.count_request("/v1/label", 429, 0);
  metrics.count_request("other", 404, 0);
  metrics.queue_changed(3, 700);
  metrics.queue_changed(-1, -200);
  metrics.count_work(120, 7);
  metrics.count_work(30, 2);
  metrics.count_dropped("deadline");
  metrics.count_dropped("deadline");
  metrics.count_dropped("shutdown");
  metrics.connections_changed(3);
  metrics.connections_changed(-1);
  metrics.count_refused("per-address");
  metrics.count_refused("fd-limit");
  metrics.count_refused("fd-limit");
  metrics.count_timed_out("head");
  metrics.count_timed_out("send");
  const PrefixCacheStats cache{.hits = 4, .misses = 5, .insertions = 6, .evictions = 2, .bytes = 4096, .entries = 3};
  const std::string text = metrics.render(cache);

  EXPECT_EQ(sample(text, R"(sift_requests_total{route="/v1/label",status="200"})"), 2);
  EXPECT_EQ(sample(text, R"(sift_requests_total{route="/v1/label",status="429"})"), 1);
  EXPECT_EQ(sample(text, R"(sift_requests_total{route="other",status="404"})"), 1);
  EXPECT_EQ(sample(text, "sift_queue_requests"), 2);
  EXPECT_EQ(sample(text, "sift_queue_tokens"), 500);
  EXPECT_EQ(sample(text, "sift_prefill_tokens_total"), 150);
  EXPECT_EQ(sample(text, "sift_labels_total"), 9);
  EXPECT_EQ(sample(text, R"(sift_dropped_total{reason="deadline"})"), 2);
  EXPECT_EQ(sample(text, R"(sift_dropped_total{reason="disconnect"})"), 0);  // present before the first
  EXPECT_EQ(sample(text, R"(sift_dropped_total{reason="shutdown"})"), 1);
  EXPECT_EQ(sample(text, "sift_connections"), 2);
  EXPECT_EQ(sample(text, R"(sift_connections_refused_total{reason="max-connections"})"), 0);
  EXPECT_EQ(sample(text, R"(sift_connections_refused_total{reason="per-address"})"), 1);
  EXPECT_EQ(sample(text, R"(sift_connections_refused_total{reason="fd-limit"})"), 2);
  EXPECT_EQ(sample(text, R"(sift_connections_timed_out_total{phase="head"})"), 1);
  EXPECT_EQ(sample(text, R"(sift_connections_timed_out_total{phase="body"})"), 0);
  EXPECT_EQ(sample(text, R"(sift_connections_timed_out_total{phase="send"})"), 1);
  EXPECT_EQ(sample(text, "sift_kv_cache_hits_total"), 4);
  EXPECT_EQ(sample(text, "sift_kv_cache_misses_total"), 5);
  EXPECT_EQ(sample(text, "sift_kv_cache_evictions_total"), 2);
  EXPECT_EQ(sample(text, "sift_kv_cache_bytes"), 4096);
  EXPECT_EQ(sample(text, "sift_kv_cache_entries"), 3);
}

TEST(Metrics, EverySampleBelongsToAFamilyWithTypeAndHelp) {
  Metrics metrics;
  metrics.count_request("/v1/label", 200, 0.1);
  const std::string text = metrics.render({});
  std::istringstream lines(text);
  std::set<std::string> typed, helped;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first, second, name, type;
    words >> first;
    if (first == "#") {
      words >> second >> name;
      (second == "TYPE" ? typed : helped).insert(name);
      if (second == "TYPE") {
        words >> type;
        EXPECT_TRUE(type == "counter" || type == "gauge" || type == "histogram") << line;
      }
      continue;
    }
    std::string family = first.substr(0, first.find('{'));
    for (const char* suffix : {"_bucket", "_sum", "_count"})
      if (family.ends_with(suffix) && !typed.count(family)) family.resize(family.size() - std::string(suffix).size());
    EXPECT_TRUE(typed.count(family) && helped.count(family)) << "no # TYPE / # HELP before " << line;
    const std::string value = line.substr(line.rfind(' ') + 1);
    EXPECT_TRUE(std::isfinite(std::stod(value))) << line;
  }
}

}  // namespace
}  // namespace sift::serve
