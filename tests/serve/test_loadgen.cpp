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
#include <string>
#include <thread>
#include <vector>

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

// A stand-in for sift serve in this process: POST /v1/label answers "{}" after `service`.
class StandInServer {
 public:
  explicit StandInServer(std::chrono::milliseconds service = {}) {
    server_.Post("/v1/label", [service](const httplib::Request&, httplib::Response& response) {
      std::this_thread::sleep_for(service);
      response.set_content("{}", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    listener_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~StandInServer() {
    server_.stop();
    listener_.join();
  }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  int port_ = -1;
  std::thread listener_;
};

// The due times (seconds from the start) of a run's arrivals, drawn here independently, as
// loadgen.h defines them.
std::vector<double> arrivals(const LoadOptions& o) {
  std::mt19937_64 rng(o.seed);
  std::exponential_distribution<double> gap(o.rate);
  std::vector<double> due;
  for (double t = gap(rng); t < o.duration_s; t += gap(rng)) due.push_back(t);
  return due;
}

TEST(Loadgen, ArrivalsAreTheSeededPoissonSequence) {
  LoadOptions o = options_at(400, 0.25);
  o.requests = {{"{}", 2}, {"{}", 3}};
  o.connections = 4;
  o.seed = 3;
  LoadResult result;
  {
    const StandInServer server;
    ASSERT_GT(server.port(), 0);
    o.url = server.url();
    result = run_load(o);
  }
  const auto expected = static_cast<int64_t>(arrivals(o).size());
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
  LoadOptions o = options_at(200, 0.25);
  o.connections = 1;
  o.seed = 9;
  LoadResult result;
  {
    const StandInServer server(kService);
    ASSERT_GT(server.port(), 0);
    o.url = server.url();
    result = run_load(o);
  }

  // Request k is due at t_k; on one connection it is sent after request k-1 is answered, and
  // answered no sooner than 20 ms after it is sent: done_k >= max(t_k, done_{k-1}) + 20 ms.
  // Latency from the due time is done_k - t_k, at least that bound minus t_k. (Latency from
  // the send, the coordinated omission this rules out, would be about 20 ms for every one.)
  std::vector<double> bound_ms;
  double done = 0;
  for (const double t : arrivals(o)) {
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
