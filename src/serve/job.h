#pragma once
// Job: one HTTP request's scoring work on its way from an HTTP thread (which parsed it) and a
// preparation thread (which rendered and tokenized it, preparation.h) through the scheduler's
// queue (engine_pool.h) and back: a ScoringJob (scoring/scoring_job.h: Queued -> Running ->
// Done, or Abandoned by the HTTP side when its deadline passes, its client goes or the server
// stops), with what the reply needs besides. A job refused or with nothing to score once it is
// prepared is finished there, never queued. Its on_done is the HTTP side's cue to answer,
// called on a worker's (or a preparation) thread: it only hands the answer over to the
// connection's own threads, never waits.
#include <cstdint>
#include <optional>
#include <vector>

#include "scoring/plan_cost.h"
#include "scoring/scoring_job.h"
#include "serve/reply.h"

namespace sift::serve {

struct Job : ScoringJob {
  int64_t truncated_tokens = 0;  // prompt tokens "truncate" cut before it was queued
  // Items scored by windows (scoring/long_items.h): their windows stand in `items`; the
  // answer folds their scores back into one per item (fold_windows).
  std::vector<ItemWindows> windows;
  int64_t window_tokens = 0, window_stride = 0;
  PlanCost plan;                 // what its plan runs (its cost; a baseline's usage)
  std::optional<Reply> refusal;  // finished without the engines, refused: its reply
};

}  // namespace sift::serve
