#pragma once
// The load generator behind `sift loadgen`: open-loop Poisson arrivals against a running
// `sift serve`, each request one row.
//
// Arrival k is due at t_k = sum_{j<=k} e_j with e_j ~ Exp(rate) (seeded), whatever the
// server does: a request's latency runs from its due time, not from when a connection was
// free to send it, so a slow server is charged for the requests it held back (no
// coordinated omission). `connections` workers take arrivals in order; each keeps one
// keep-alive connection.
//
// Open-loop arrivals still waiting for a connection 2 x duration + 5 s after the start are
// not sent (counted as errors "not_sent"), so a run far above capacity ends. closed_loop
// instead has each connection send back to back until `duration_s` (a saturation test:
// latency then runs from the send).
//
// Memory: arrivals are drawn one at a time as workers take them; a run keeps one latency per
// answered request, so it is bounded to kMaxRequestsPerRun requests: rate x duration (the
// expected arrivals) above it is an OptionError, and a closed loop stops sending there. A
// duration is at most kMaxDurationSeconds.
//
// find_max_rate searches the highest rate whose p99 stays within a target: double the rate
// from `rate` until a trial misses (p99 over target, or any error), then bisect between the
// last rate that held and the first that missed. The rate grows no further than the bound
// above allows.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sift::serve {

constexpr double kMaxRequestsPerRun = 10'000'000;
constexpr double kMaxDurationSeconds = 86'400;  // a day of arrivals per run

struct LoadRequest {
  std::string body;    // JSON for the route
  int64_t labels = 0;  // items it scores
};

struct LoadOptions {
  std::string url;             // http://host:port
  std::string path;            // /v1/label, /v1/score, /v1/rerank
  std::vector<LoadRequest> requests;  // cycled through in order
  double rate = 1;             // arrivals per second
  double duration_s = 10;      // arrivals are generated for this long
  int connections = 32;
  uint64_t seed = 1;
  std::string api_key;         // sent as "Authorization: Bearer <key>" when set
  bool closed_loop = false;    // connections send back to back; `rate` is not used
};

struct LoadResult {
  double rate = 0, seconds = 0;
  int64_t sent = 0, ok = 0, labels = 0;
  std::map<std::string, int64_t> errors;  // HTTP status (or "connection") -> count
  double labels_per_s = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
  nlohmann::json to_json() const;
};

// The rate and duration checked against the bounds above (an OptionError); run_load checks
// them first, a caller may before it gathers the requests.
void check_load_options(const LoadOptions& options);

LoadResult run_load(const LoadOptions& options);

struct MaxRateResult {
  LoadResult best;  // the highest rate that held (rate 0 when none did)
  std::vector<LoadResult> trials;
  nlohmann::json to_json(double p99_target_ms) const;
};

MaxRateResult find_max_rate(LoadOptions options, double p99_target_ms, int bisect_steps = 4);

}  // namespace sift::serve
