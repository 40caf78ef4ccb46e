#pragma once
// FleetPolicy: which engine takes the next request, and what a failed attempt costs, for a
// fleet of scoring servers (remote/fleet.h). No sockets and no clock of its own: the caller
// says what happened and when, so every rule here is tested on its own.
//
//   choose      among the engines that may take a request now, the one with the fewest
//               outstanding prompt tokens (ties: fewer requests in flight, then the next one
//               after the last chosen), and at most max_in_flight requests each. An engine
//               may not take one while paused (Retry-After) or ejected.
//   answered    200: the engine is healthy again (failures forgotten, back in rotation).
//   busy        429: paused for Retry-After (else 1 s); not a failure, the request goes on.
//   failed      connection error, timeout, 5xx, an answer that is not one: counted; after
//               eject_after failures in a row the engine is ejected for
//               min(eject_cap, eject_base * 2^(ejections so far)), then probed: one request
//               at a time until one is answered (back in rotation) or fails (ejected again, for
//               twice as long). A 503's Retry-After pauses it too.
//   backoff     a request that failed waits min(backoff_cap, backoff_base * 2^(attempts - 1)),
//               times a jitter drawn uniformly from [0.5, 1], before it is tried again
//               (on whichever engine then takes it).
//   timed out   work waits and no engine has answered (200) for `timeout`: since the later of
//               the last answer and the moment the fleet last had nothing to do.
#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "sift/engines.h"

namespace sift::remote {

using FleetClock = std::chrono::steady_clock;
using TimePoint = FleetClock::time_point;
using Duration = std::chrono::steady_clock::duration;

struct FleetSettings {
  int max_in_flight = 4;                          // requests at once per engine
  Duration timeout = std::chrono::duration_cast<Duration>(
      std::chrono::duration<double>(kDefaultEngineTimeoutSeconds));  // --engine-timeout
  int eject_after = 3;                            // failures in a row
  Duration backoff_base = std::chrono::milliseconds(50);
  Duration backoff_cap = std::chrono::seconds(5);
  Duration eject_base = std::chrono::milliseconds(500);
  Duration eject_cap = std::chrono::seconds(15);
  Duration default_retry_after = std::chrono::seconds(1);
  Duration max_retry_after = std::chrono::seconds(30);
};

enum class Outcome { Answered, Busy, Failed };

class FleetPolicy {
 public:
  FleetPolicy(size_t n_engines, const FleetSettings& settings, uint64_t seed = 0x5eedf1ee7ULL);

  // The engine that takes a request of `tokens` prompt tokens now (counted as in flight on it
  // until finished), or nullopt when none may.
  std::optional<size_t> choose(int64_t tokens, TimePoint now);
  // The attempt on `engine` that choose() gave ended so; `failure` says how (Busy, Failed).
  void finished(size_t engine, int64_t tokens, Outcome outcome, TimePoint now,
                std::optional<Duration> retry_after = std::nullopt, const std::string& failure = "");
  // How long a request waits after its `attempts`-th failed attempt (>= 1).
  Duration backoff(int attempts);

  // Work is waiting (the first request of a batch while none was): the timeout counts from now
  // unless an engine answered more recently.
  void work_arrived(TimePoint now);
  void work_drained() { idle_ = true; }
  bool timed_out(TimePoint now) const;
  // The next moment an engine that may not take requests now may again (its pause or
  // ejection ends); nullopt when none is waiting for one.
  std::optional<TimePoint> next_change(TimePoint now) const;

  // "http://a: connection refused (ejected); http://b: 503 ..." — given the engines' URLs; an
  // engine whose last attempt was answered says when.
  std::string failures(const std::vector<std::string>& urls, TimePoint now) const;

  struct EngineState {
    int64_t outstanding_tokens = 0;
    int in_flight = 0;
    int failures_in_row = 0;
    int ejections = 0;               // in a row, without an answer between them
    std::optional<TimePoint> ejected_until;
    TimePoint paused_until{};        // Retry-After
    bool probing = false;            // its ejection ended: one request at a time until answered
    std::string last_failure;        // of its last attempt, if that failed
    std::optional<TimePoint> last_answer;
  };
  const EngineState& state(size_t engine) const { return engines_[engine]; }

 private:
  bool may_take(const EngineState& engine, TimePoint now) const;

  FleetSettings settings_;
  std::vector<EngineState> engines_;
  size_t next_ = 0;  // round-robin start among ties
  std::mt19937_64 random_;
  TimePoint last_answer_{};
  TimePoint waiting_since_{};
  bool idle_ = true;
};

}  // namespace sift::remote
