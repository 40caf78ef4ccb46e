#pragma once
// ScoringJob: one row's scoring work (a query part and its items, or their text for mode
// generate) on its way through the scheduler (scoring/scheduler.h) and back to its feeder.
//
//   state:  Queued --claim (a worker)--> Running --finish--> Done
//           Queued --abandon (the feeder: deadline passed, client gone)--> Abandoned
//
// Exactly one of claim/abandon wins, so a job a worker has started is always finished, and
// an abandoned one never costs compute. A job run at once on the caller's own engine
// (run_jobs) goes Queued -> Running -> Done the same way. finish() wakes whoever waits and
// then calls on_done, if set (a completion callback for feeders that do not wait), and lets
// it go: what it holds (sift serve's HTTP connection) is not kept alive by the job.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scoring/artifact.h"
#include "scoring/calibration_map.h"
#include "scoring/plan.h"
#include "scoring/readout.h"
#include "sift/labeler.h"

namespace sift {

using Clock = std::chrono::steady_clock;

struct ScoringJob {
  // Input: set before the job is queued, read-only after.
  ScoringMode mode = ScoringMode::Mis;
  Readout readout;                      // read at each item's answer position (not mode generate)
  TokenIds query;
  std::vector<TokenIds> items;
  std::string query_text;               // mode generate works on text
  std::vector<std::string> item_texts;
  double threshold = 0.5;               // YesProbability: label = score (or probability) >= threshold
  ThresholdOn threshold_on = ThresholdOn::Score;  // which of the two the threshold applies to
  const CalibrationMap* calibration = nullptr;    // YesProbability: result.probabilities = apply(score)
                                                  // (sift.json's map, which outlives the job); none: none
  int64_t cost = 0;                     // what its plan runs (job_plan_cost, scheduler.h): the queue's measure
  Clock::time_point arrived = Clock::now();
  std::optional<Clock::time_point> deadline;  // not started by then: dropped, nothing computed
  std::function<void(ScoringJob&)> on_done;   // called once, by finish()

  // The labeler's labeling: `threshold` (the caller's, else sift.json's), its threshold_on and
  // calibration map.
  void label_by(const ScoringArtifact& artifact, double label_threshold) {
    threshold = label_threshold;
    threshold_on = artifact.threshold_on;
    calibration = artifact.calibration_map ? &*artifact.calibration_map : nullptr;
  }

  // Output: written by the scheduler before finish().
  RowResult result;                               // scores, labels, usage, error
  std::vector<std::vector<double>> label_scores;  // LabelProbabilities: per item, per label
  Clock::time_point started{};
  bool expired = false;  // its deadline passed before a worker took it: nothing was run

  // Queued -> Running; false when the feeder abandoned it first.
  bool claim() { return transition(State::Queued, State::Running); }
  // Queued -> Abandoned; false when a worker has it (wait for finish()).
  bool abandon() { return transition(State::Queued, State::Abandoned); }
  void finish() {
    {
      std::lock_guard lock(mutex_);
      state_ = State::Done;
      done_.notify_all();
    }
    if (std::function<void(ScoringJob&)> done = std::exchange(on_done, nullptr)) done(*this);
  }
  bool done() const {
    std::lock_guard lock(mutex_);
    return state_ == State::Done;
  }
  bool abandoned() const {
    std::lock_guard lock(mutex_);
    return state_ == State::Abandoned;
  }
  void wait() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return state_ == State::Done; });
  }
  // Waits up to `timeout` for finish(); true when done.
  template <typename Duration>
  bool wait_for(Duration timeout) {
    std::unique_lock lock(mutex_);
    return done_.wait_for(lock, timeout, [&] { return state_ == State::Done; });
  }

 private:
  enum class State { Queued, Running, Abandoned, Done };
  bool transition(State from, State to) {
    std::lock_guard lock(mutex_);
    if (state_ != from) return false;
    state_ = to;
    return true;
  }
  mutable std::mutex mutex_;
  std::condition_variable done_;
  State state_ = State::Queued;
};

}  // namespace sift
