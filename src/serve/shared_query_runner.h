#pragma once
// Runs mis jobs (one row each: a query part and its items) on a session, as forward calls of
// at most limits.max_call_tokens new tokens, with the query-KV cache.
//
// Each job's items are split into requests as `sift score` splits them
// (split_into_requests: Lq + the request's items <= the request limit). Requests are packed
// in order into calls; a request's query comes from, in this order of preference:
//
//   the same call      an earlier request of the call with the same query ran it: its keys
//   the cache          its K/V block is appended to the session before the call (key_offset)
//   the request itself the query run is prefilled here (append_request) and, after the
//                      call, copied into the cache
//
// and its items run against those keys (append_items: the multi-item rule of plan.h). So the
// next round of a profile, or the second half of a split row, prefills only its items, and
// every score is the bits of [q; c_i] alone. A job is finished as soon as the call holding
// its last item ends.
#include <functional>
#include <span>
#include <vector>

#include "model/session.h"
#include "scoring/plan.h"
#include "scoring/prompt.h"
#include "serve/job.h"
#include "serve/metrics.h"
#include "serve/query_kv_cache.h"

namespace sift::serve {

struct RunnerContext {
  PlanLimits limits;
  AnswerTokenIds answer;
  QueryKvCache& cache;
  Metrics& metrics;
};

// All jobs must have mode mis and the same readout kind; LabelProbabilities jobs in one call
// share the vocabulary rows it reads (the union of their labels, or the whole vocabulary
// when any of them needs log-probabilities). Calls job->finish() on each.
void run_shared_query_jobs(Session& session, std::span<Job* const> jobs, const RunnerContext& context);

}  // namespace sift::serve
