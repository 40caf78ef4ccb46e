#pragma once
// RemoteEngine: the scheduler's Engine (scoring/engine.h) over a fleet of scoring servers.
// The scheduler plans as for a local engine (the same requests, the same usage); each planned
// request with items becomes one SGLang /v1/score request with token ids, sent to the fleet:
//
//   {"model": NAME, "query": [query ids], "items": [[item ids], ...],
//    "label_token_ids": [yes, no] (or the job's labels), "apply_softmax": true}
//
// and the answer's probabilities are the items' readouts: with softmax over [yes, no], p_yes is
// the bits of the local P(yes) (scoring/readout.h: exp(0) = 1 and the same two-term sum), so
// against sift serve the scores are the same bits as local scoring. Where the query's keys
// come from (Run, SameCall, Kept) is the server's business: it has its own query-KV cache.
// The requests of one call are sent at once and run in parallel over the fleet.
#include <memory>
#include <string>

#include "remote/fleet.h"
#include "scoring/engine.h"

namespace sift::remote {

class RemoteEngine final : public Engine {
 public:
  RemoteEngine(std::shared_ptr<Fleet> fleet, std::string model_name)
      : fleet_(std::move(fleet)), model_name_(std::move(model_name)) {}

  OfferedKeys run(const PlannedCall& call, std::span<ScoringJob* const> jobs) override;
  bool holds(std::span<const int32_t>) const override { return false; }
  void generate(std::span<ScoringJob* const> jobs, const GenerateSetup& setup, int64_t call_tokens) override;

 private:
  std::shared_ptr<Fleet> fleet_;
  std::string model_name_;
};

// The /v1/score body of `job`'s items [range] (exposed for the tests).
std::string score_request_body(const ScoringJob& job, ItemRange items, const std::string& model_name);

}  // namespace sift::remote
