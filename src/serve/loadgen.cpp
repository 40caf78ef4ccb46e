#include "serve/loadgen.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "core/error.h"

namespace sift::serve {
namespace {

using Clock = std::chrono::steady_clock;

// Due times (seconds from the start) of Poisson arrivals at `rate` within `duration`, drawn
// one at a time: t_k = t_{k-1} + e_k, e_k ~ Exp(rate), until t_k >= duration. Not thread-safe.
class Arrivals {
 public:
  Arrivals(double rate, double duration, uint64_t seed) : rng_(seed), gap_(rate), duration_(duration) {}
  std::optional<double> next() {
    t_ += gap_(rng_);
    if (t_ >= duration_) return std::nullopt;
    return t_;
  }

 private:
  std::mt19937_64 rng_;
  std::exponential_distribution<double> gap_;
  double duration_;
  double t_ = 0;
};

// Value at quantile q (0..1) of sorted samples: the nearest-rank definition,
// element ceil(q * n) - 1.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

void check_load_options(const LoadOptions& options) {
  if (!(options.duration_s > 0 && options.duration_s <= kMaxDurationSeconds))
    fail_option("--duration must be a number in (0, {}] seconds, got {}", kMaxDurationSeconds, options.duration_s);
  if (!options.closed_loop && !(options.rate > 0 && options.rate * options.duration_s <= kMaxRequestsPerRun))
    fail_option("--rate {} x --duration {} s: the expected arrivals must be > 0 and at most {} per run", options.rate,
                options.duration_s, kMaxRequestsPerRun);
}

LoadResult run_load(const LoadOptions& options) {
  check_load_options(options);
  if (options.requests.empty()) fail("loadgen: no requests to send");
  std::optional<Arrivals> arrivals;
  if (!options.closed_loop) arrivals.emplace(options.rate, options.duration_s, options.seed);

  std::mutex mutex;
  std::vector<double> latencies_ms;
  LoadResult result;
  result.rate = options.closed_loop ? 0 : options.rate;
  std::atomic<size_t> next{0};  // closed loop: requests sent; open loop: arrivals taken
  Clock::time_point last_done;
  const Clock::time_point start = Clock::now();
  const auto after = [&](double seconds) { return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)); };
  const Clock::time_point end = after(options.duration_s), give_up = after(2 * options.duration_s + 5);

  const auto worker = [&] {
    httplib::Client client(options.url);
    client.set_keep_alive(true);
    client.set_tcp_nodelay(true);
    client.set_connection_timeout(10);
    client.set_read_timeout(120);
    httplib::Headers headers;
    if (!options.api_key.empty()) headers.emplace("Authorization", "Bearer " + options.api_key);
    const auto send = [&](size_t k, Clock::time_point due_at) {
      const LoadRequest& request = options.requests[k % options.requests.size()];
      const httplib::Result response = client.Post(options.path.c_str(), headers, request.body, "application/json");
      const Clock::time_point done = Clock::now();
      std::lock_guard lock(mutex);
      ++result.sent;
      last_done = std::max(last_done, done);
      if (response && response->status == 200) {
        ++result.ok;
        result.labels += request.labels;
        latencies_ms.push_back(std::chrono::duration<double, std::milli>(done - due_at).count());
      } else {
        ++result.errors[response ? std::to_string(response->status) : "connection"];
      }
    };
    if (options.closed_loop) {
      for (size_t k; Clock::now() < end && (k = next++) < size_t(kMaxRequestsPerRun);) send(k, Clock::now());
      return;
    }
    while (true) {
      std::optional<double> due;
      size_t k = 0;
      {
        std::lock_guard lock(mutex);
        due = arrivals->next();
        k = next++;
      }
      if (!due) return;
      const Clock::time_point due_at = after(*due);
      if (Clock::now() > give_up) {  // far behind: the run ends
        std::lock_guard lock(mutex);
        ++result.errors["not_sent"];
        continue;
      }
      std::this_thread::sleep_until(due_at);
      send(k, due_at);
    }
  };
  std::vector<std::thread> workers;
  for (int c = 0; c < std::max(1, options.connections); ++c) workers.emplace_back(worker);
  for (std::thread& t : workers) t.join();

  result.seconds = std::chrono::duration<double>(std::max(last_done, start) - start).count();
  result.seconds = std::max(result.seconds, options.duration_s);
  result.labels_per_s = static_cast<double>(result.labels) / result.seconds;
  std::sort(latencies_ms.begin(), latencies_ms.end());
  result.p50_ms = quantile(latencies_ms, 0.50);
  result.p90_ms = quantile(latencies_ms, 0.90);
  result.p99_ms = quantile(latencies_ms, 0.99);
  result.max_ms = latencies_ms.empty() ? 0 : latencies_ms.back();
  return result;
}

nlohmann::json LoadResult::to_json() const {
  return {{"rate", rate},
          {"seconds", seconds},
          {"sent", sent},
          {"ok", ok},
          {"errors", errors},
          {"labels", labels},
          {"labels_per_s", labels_per_s},
          {"latency_ms", {{"p50", p50_ms}, {"p90", p90_ms}, {"p99", p99_ms}, {"max", max_ms}}}};
}

MaxRateResult find_max_rate(LoadOptions options, double p99_target_ms, int bisect_steps) {
  MaxRateResult out;
  const auto holds = [&](double rate) {
    options.rate = rate;
    ++options.seed;  // a fresh arrival sequence per trial
    LoadResult trial = run_load(options);
    const bool ok = trial.errors.empty() && trial.ok > 0 && trial.p99_ms <= p99_target_ms;
    out.trials.push_back(trial);
    if (ok && trial.rate > out.best.rate) out.best = trial;
    return ok;
  };
  const double highest = kMaxRequestsPerRun / options.duration_s;  // the bound of run_load
  double low = 0, high = std::min(options.rate, highest);
  while (holds(high)) {  // grow until a rate misses
    low = high;
    if (high == highest) return out;  // held at the highest rate a run may try
    high = std::min(2 * high, highest);
  }
  for (int step = 0; step < bisect_steps; ++step) {
    const double mid = low > 0 ? (low + high) / 2 : high / 2;
    if (holds(mid)) low = mid;
    else high = mid;
  }
  return out;
}

nlohmann::json MaxRateResult::to_json(double p99_target_ms) const {
  nlohmann::json trials_json = nlohmann::json::array();
  for (const LoadResult& trial : trials) trials_json.push_back(trial.to_json());
  return {{"p99_target_ms", p99_target_ms},
          {"max_rate", best.rate},
          {"labels_per_s", best.labels_per_s},
          {"best", best.to_json()},
          {"trials", std::move(trials_json)}};
}

}  // namespace sift::serve
