#pragma once
// Engine: what runs the forward calls the scheduler plans (scoring/scheduler.h). One
// interface, so the scheduler does not care where the model runs:
//
//   LocalEngine   a Session (KV cache + workspace) on the shared, read-only Model: one per
//                 worker thread, server worker or Python thread; the weights exist once
//   remote        (a scoring server behind a client) implements the same calls
//
// A planned call holds requests side by side. A request is one job's query with a run of
// its items, and says where its query's keys come from:
//
//   Run       the query's tokens run in this call, before the request's items
//   SameCall  an earlier request of this call has the same query: its keys
//   Kept      computed earlier: `cached` is the prefix cache's copy of the keys, or (null) the
//             engine holds them already (holds(query): at most the call's first Kept query)
//
// The engine lays the call out by the multi-item rule (scoring/plan.h: append_request,
// append_items), runs it, and writes each item's readout (scoring/readout.h) into its job.
// It hands back copies of the keys of the Run queries the scheduler asked for (offer_query),
// for the prefix cache. Every score is the bits of [q; c_i] alone, whatever the sources.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "model/session.h"
#include "scoring/request_sizing.h"
#include "scoring/scoring_job.h"

namespace sift {

class PromptEncoder;
struct ScoringArtifact;

enum class QuerySource : uint8_t { Run, SameCall, Kept };

struct CallRequest {
  int32_t job = 0;     // index into the jobs the call was planned from
  ItemRange items;     // the job's items it scores; empty: the query alone (its keys kept)
  QuerySource query = QuerySource::Run;
  std::shared_ptr<const KvBlock> cached;  // Kept: the prefix cache's copy, or null (the engine holds them)
  bool offer_query = false;               // Run: hand a copy of the query's keys back
};

struct PlannedCall {
  std::vector<CallRequest> requests;
  int64_t n_tokens = 0;  // new tokens: what the call budget counts
};

// A copy of a Run query's keys, for the prefix cache: offered[k] belongs to requests[k]
// (null where the request did not ask).
using OfferedKeys = std::vector<std::shared_ptr<const KvBlock>>;

// What packed generation (mode generate) needs beside the model: the prompt assembly, the
// artifact's answer words (scoring/generate_mode.h) and the longest request (--max-request-tokens).
// one_row_decoding (or SIFT_GENERATE_DECODER=one-row) decodes each request alone, one token per
// call (the plain reference, kept for benchmarks); otherwise the requests of all the jobs in
// hand are decoded together (scoring/batched_decode.h). Both give the same bytes.
struct GenerateSetup {
  const PromptEncoder* prompts = nullptr;
  const ScoringArtifact* artifact = nullptr;
  int64_t max_request_tokens = 0;
  bool one_row_decoding = false;
};

// SIFT_GENERATE_DECODER: unset or "batched" decodes rows together, "one-row" one at a time (for
// benchmarks); another value is an Error naming the two (each generate row's error: the
// variable is read only where rows are generated).
bool one_row_decoding_from_environment();

class Engine {
 public:
  virtual ~Engine() = default;
  // Runs one call over `jobs` (the indices in call.requests), writing each item's readout
  // into its job: result.scores (YesProbability) or label_scores (LabelProbabilities).
  virtual OfferedKeys run(const PlannedCall& call, std::span<ScoringJob* const> jobs) = 0;
  // Whether the keys of `query` are in place for the next call without a copy.
  virtual bool holds(std::span<const int32_t> query) const = 0;
  // Mode generate: the jobs' packed generation on their text, into each job.result (a job
  // whose row cannot be planned gets its error there), decoding at most `call_tokens` keys
  // of requests at once.
  virtual void generate(std::span<ScoringJob* const> jobs, const GenerateSetup& setup, int64_t call_tokens) = 0;
};

// How many compute threads each of the contexts running at once gets: `total` split evenly
// among them (at least 1 each), so two contexts on two cores run one thread each.
class ThreadShare {
 public:
  explicit ThreadShare(int total) : total_(total) {}
  void enter() { ++active_; }
  void leave() { --active_; }
  int per_context() const { return std::max(1, total_ / std::max(1, active_.load())); }

  // enter() for its lifetime, then leave(); nothing when the share is null.
  class Scoring {
   public:
    explicit Scoring(ThreadShare* share) : share_(share) {
      if (share_) share_->enter();
    }
    ~Scoring() {
      if (share_) share_->leave();
    }
    Scoring(const Scoring&) = delete;
    Scoring& operator=(const Scoring&) = delete;

   private:
    ThreadShare* share_;
  };

 private:
  int total_;
  std::atomic<int> active_{0};
};

// An engine on this machine: a Session on a shared Model.
class LocalEngine final : public Engine {
 public:
  // A session of its own on `model`: n_threads <= 0, the process default; `share` (when
  // given) decides the count per call instead.
  explicit LocalEngine(const Model& model, int n_threads = 0, const ThreadShare* share = nullptr);
  // The caller's session (and its thread count), which must outlive the engine.
  explicit LocalEngine(Session& session);

  OfferedKeys run(const PlannedCall& call, std::span<ScoringJob* const> jobs) override;
  bool holds(std::span<const int32_t> query) const override;
  void generate(std::span<ScoringJob* const> jobs, const GenerateSetup& setup, int64_t call_tokens) override;

  Session& session() { return session_; }

 private:
  void use_threads();

  std::unique_ptr<Session> owned_;
  Session& session_;
  const ThreadShare* share_ = nullptr;
  // The query whose keys the session keeps at [0, Lq) after a call (the call's first Kept
  // query, or its first request's query run from key 0), so that the next call against the
  // same query (prefix mode's next item, a profile's next round) needs no copy.
  TokenIds resident_;
};

}  // namespace sift
