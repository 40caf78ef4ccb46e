#pragma once
// Admission by size: what a request asks the server to compute and send back, counted from its
// parsed body before anything is tokenized or queued. Over a limit is a 413 (BadRequest with
// status 413) naming the limit and the flag that sets it:
//
//   items            items (/v1/label, /v1/score) or documents (/v1/rerank)  --max-items
//                    (counted while the body is parsed: api_requests.h)
//   scores           /v1/score: items x label_token_ids, one number each      --max-scores
//   response bytes   the answer's size, bounded from the body (below)         --max-response-mb
//
// What its plan runs, once it is tokenized, is then charged against --max-queue-tokens
// (service.h).
// The response bound, in bytes: 512 for the fixed fields, and per item kBytesPerScore for each
// number it gets (a double's longest shortest-round-trip text, with its comma) plus its label
// or index; whatever the answer echoes (/v1/label's ids, /v1/rerank's documents) is counted as
// the whole body's size, which it cannot exceed (JSON escapes cost the same both ways).
#include <cstddef>
#include <cstdint>

#include "serve/api_requests.h"

namespace sift::serve {

struct AdmissionLimits {
  int64_t max_items = 10'000;
  int64_t max_scores = 1'000'000;
  int64_t max_response_bytes = int64_t{64} << 20;
};

inline constexpr int64_t kBytesPerScore = 25;  // "-1.2345678901234567e-308,"

// Each throws BadRequest(413) at the first limit the request is over.
void admit(const LabelRequest& request, size_t body_bytes, const AdmissionLimits& limits);
void admit(const ScoreRequest& request, size_t body_bytes, const AdmissionLimits& limits);
void admit(const RerankRequest& request, size_t body_bytes, const AdmissionLimits& limits);

}  // namespace sift::serve
