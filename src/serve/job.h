#pragma once
// Job: one HTTP request's scoring work on its way from an HTTP thread (which parsed,
// rendered and tokenized it) through the queue to the engine loop and back.
//
//   state:  Queued --claim (engine)--> Running --finish--> Done
//           Queued --abandon (HTTP: deadline passed, client gone, shutdown)--> Abandoned
//
// Exactly one of claim/abandon wins, so a job the engine has started is always finished and
// answered, and an abandoned one never costs compute. finish() calls on_done, on the engine's
// thread: the HTTP side's cue to answer (it only hands the answer over to its own threads
// there, never waits).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scoring/plan.h"
#include "sift/labeler.h"

namespace sift::serve {

using Clock = std::chrono::steady_clock;

// How an item's answer-position logits are read.
//   YesProbability     : P(yes) = exp(l_yes) / (exp(l_yes) + exp(l_no))    (readout.h)
//   LabelProbabilities : per label token t, softmax ? exp(l_t) / sum_u exp(l_u) over the labels
//                                                   : exp(l_t - logsumexp over the vocabulary)
struct Readout {
  enum class Kind { YesProbability, LabelProbabilities } kind = Kind::YesProbability;
  std::vector<int32_t> label_ids;
  bool softmax = false;
};

struct Job {
  // Input: set before the job is queued, read-only after.
  ScoringMode mode = ScoringMode::Mis;  // LabelProbabilities jobs are always mis
  Readout readout;
  TokenIds query;
  std::vector<TokenIds> items;
  std::string query_text;               // mode generate works on text
  std::vector<std::string> item_texts;
  double threshold = 0.5;
  int64_t cost = 0;                     // prompt tokens (query + items): the queue's measure
  int64_t truncated_tokens = 0;         // prompt tokens "truncate" cut before it was queued
  Clock::time_point arrived = Clock::now();
  std::optional<Clock::time_point> deadline;
  std::function<void()> on_done;  // called by finish(), once

  // Output: written by the engine loop before finish().
  RowResult result;                                  // YesProbability: scores, labels, usage
  int64_t cached_tokens = 0;  // query tokens whose K/V were reused (the query-KV cache, or a
                              // request in the same call), not prefilled: mode mis only
  std::vector<std::vector<double>> label_scores;     // LabelProbabilities: per item, per label
  Clock::time_point started{};
  bool expired = false;  // its deadline passed before the engine took it: nothing was run (504)

  // Engine: Queued -> Running. False when the HTTP side abandoned it first.
  bool claim() { return transition(State::Queued, State::Running); }
  // HTTP: Queued -> Abandoned. False when the engine has it (wait for finish()).
  bool abandon() { return transition(State::Queued, State::Abandoned); }
  void finish() {
    {
      std::lock_guard lock(mutex_);
      state_ = State::Done;
    }
    // Called and let go: what it holds (the HTTP connection) is not kept alive by the job.
    if (std::function<void()> done = std::exchange(on_done, nullptr)) done();
  }
  bool done() {
    std::lock_guard lock(mutex_);
    return state_ == State::Done;
  }

 private:
  enum class State { Queued, Running, Abandoned, Done };
  bool transition(State from, State to) {
    std::lock_guard lock(mutex_);
    if (state_ != from) return false;
    state_ = to;
    return true;
  }
  std::mutex mutex_;
  State state_ = State::Queued;
};

}  // namespace sift::serve
