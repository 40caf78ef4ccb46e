// The load generator of `sift loadgen` (serve/loadgen.h) against a real HTTP server in this
// process: the bounds of a run are OptionErrors before anything is sent; the arrivals, drawn
// one at a time, are the seeded Poisson sequence t_k = t_{k-1} + Exp(rate), t_k < duration;
// and latency runs from each request's due time, so a server too slow for the rate is
// charged for the requests it held back (checked against lower bounds that the server's own
// sleeps guarantee, so a busy machine can only make the latencies longer).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <thread>

#include "core/error.h"
#include "serve/loadgen.h"

namespace sift::serve {
namespace {

LoadOptions options_at(double rate, double duration) {
  LoadOptions o;
  o.url = "http://127.0.0.1:9";  // never reached: every case below fails before sending
  o.path = "/v1/label";
  o.requests = {{"{}", 1}};
  o.rate = rate;
  o.duration_s = duration;
  return o;
}

TEST(Loadgen, RatesAndDurationsOutsideTheBoundsAreOptionErrors) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (auto [rate, duration] : {std::pair{nan, 1.0}, {0.0, 1.0}, {-1.0, 1.0}, {inf, 1.0}, {1e6, 100.0}, {1.0, nan},
                                {1.0, 0.0}, {1.0, inf}, {1e-3, kMaxDurationSeconds * 2}}) {
    EXPECT_THROW(check_load_options(options_at(rate, duration)), OptionError) << rate << " x " << duration;
    EXPECT_THROW(run_load(options_at(rate, duration)), OptionError) << rate << " x " << duration;
  }
  EXPECT_THAT(
      [] {
        try {
          check_load_options(options_at(1e6, 100));
        } catch (const OptionError& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      ::testing::HasSubstr("at most 10000000 per run"));
  EXPECT_NO_THROW(check_load_options(options_at(kMaxRequestsPerRun, 1)));
  LoadOptions closed = options_at(nan, 1);  // a closed loop has no rate
  closed.closed_loop = true;
  EXPECT_NO_THROW(check_load_options(closed));
}

TEST(Loadgen, ArrivalsAreTheSeededPoissonSequence) {
  httplib::Server server;
  server.Post("/v1/label", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("{}", "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread listener([&] { server.listen_after_bind(); });

  LoadOptions o = options_at(400, 0.25);
  o.url = "http://127.0.0.1:" + std::to_string(port);
  o.requests = {{"{}", 2}, {"{}", 3}};
  o.connections = 4;
  o.seed = 3;
  const LoadResult result = run_load(o);
  server.stop();
  listener.join();

  // The arrivals drawn here independently, as loadgen.h defines them.
  std::mt19937_64 rng(o.seed);
  std::exponential_distribution<double> gap(o.rate);
  int64_t expected = 0;
  for (double t = gap(rng); t < o.duration_s; t += gap(rng)) ++expected;
  ASSERT_GT(expected, 50);
  EXPECT_EQ(result.sent, expected);
  EXPECT_EQ(result.ok, expected);
  EXPECT_TRUE(result.errors.empty());
  EXPECT_EQ(result.labels, 2 * ((expected + 1) / 2) + 3 * (expected / 2));  // requests cycled 2, 3, 2, ...
}

// loadgen.cpp's quantile: the nearest rank, element ceil(q n) - 1 of the sorted values.
double nearest_rank(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

TEST(Loadgen, LatencyRunsFromTheDueTimeAboveTheServersCapacity) {
  // A stand-in server that takes at least 20 ms per request, driven through one connection at
  // 200 requests/s: 4x its capacity, so requests wait for the connection ever longer.
  constexpr auto kService = std::chrono::milliseconds(20);
  httplib::Server server;
  server.Post("/v1/label", [&](const httplib::Request&, httplib::Response& response) {
    std::this_thread::sleep_for(kService);
    response.set_content("{}", "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread listener([&] { server.listen_after_bind(); });
  LoadOptions o = options_at(200, 0.25);
  o.url = "http://127.0.0.1:" + std::to_string(port);
  o.connections = 1;
  o.seed = 9;
  const LoadResult result = run_load(o);
  server.stop();
  listener.join();

  // Request k is due at t_k; on one connection it is sent after request k-1 is answered, and
  // answered no sooner than 20 ms after it is sent: done_k >= max(t_k, done_{k-1}) + 20 ms.
  // Latency from the due time is done_k - t_k, at least that bound minus t_k. (Latency from
  // the send, the coordinated omission this rules out, would be about 20 ms for every one.)
  std::mt19937_64 rng(o.seed);
  std::exponential_distribution<double> gap(o.rate);
  std::vector<double> bound_ms;
  double done = 0;
  for (double t = gap(rng); t < o.duration_s; t += gap(rng)) {
    done = std::max(t, done) + std::chrono::duration<double>(kService).count();
    bound_ms.push_back(1000 * (done - t));
  }
  ASSERT_EQ(result.ok, static_cast<int64_t>(bound_ms.size())) << "every request answered";
  ASSERT_GT(nearest_rank(bound_ms, 0.99), 10 * 20) << "the rate is far enough above capacity to tell";
  EXPECT_GE(result.p50_ms, nearest_rank(bound_ms, 0.50));
  EXPECT_GE(result.p90_ms, nearest_rank(bound_ms, 0.90));
  EXPECT_GE(result.p99_ms, nearest_rank(bound_ms, 0.99));
  EXPECT_GE(result.max_ms, *std::max_element(bound_ms.begin(), bound_ms.end()));
  EXPECT_LE(result.p50_ms, result.p90_ms);
  EXPECT_LE(result.p90_ms, result.p99_ms);
  EXPECT_LE(result.p99_ms, result.max_ms);
}

}  // namespace
}  // namespace sift::serve
