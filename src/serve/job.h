#pragma once
// Job: one HTTP request's scoring work on its way from an HTTP thread (which parsed, rendered
// and tokenized it) through the scheduler's queue (engine_pool.h) and back: a ScoringJob
// (scoring/scoring_job.h: Queued -> Running -> Done, or Abandoned by the HTTP side when its
// deadline passes, its client goes or the server stops), with what the reply needs besides.
// Its on_done is the HTTP side's cue to answer, called on a worker's thread: it only hands
// the answer over to the connection's own threads, never waits.
#include <cstdint>

#include "scoring/scoring_job.h"

namespace sift::serve {

struct Job : ScoringJob {
  int64_t truncated_tokens = 0;  // prompt tokens "truncate" cut before it was queued
};

}  // namespace sift::serve
