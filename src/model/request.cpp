// Checks of a ForwardRequest against the model and the cached keys: everything the forward
// pass relies on (model/segment.h states what a segment means).
#include "core/error.h"
#include "model/model.h"

namespace sift {

void validate_request(const ModelConfig& config, const ForwardRequest& request, int64_t n_cached) {
  const int64_t T = static_cast<int64_t>(request.ids.size());
  if (T == 0) fail("forward request has no tokens");
  if (static_cast<int64_t>(request.positions.size()) != T)
    fail("forward request has {} tokens but {} positions", T, request.positions.size());
  for (int64_t t = 0; t < T; ++t) {
    if (request.ids[t] < 0 || request.ids[t] >= config.vocab_size)
      fail("token {} has id {}, outside the vocabulary [0, {})", t, request.ids[t], config.vocab_size);
    if (request.positions[t] < 0 || request.positions[t] >= config.max_position_embeddings)
      fail("token {} has position {}, outside [0, max_position_embeddings = {})", t, request.positions[t],
           config.max_position_embeddings);
  }
  int64_t next = 0;
  for (size_t s = 0; s < request.segments.size(); ++s) {
    const Segment& seg = request.segments[s];
    if (seg.start != next || seg.len <= 0)
      fail("segment {} covers [{}, {}) but must start at {} and be non-empty", s, seg.start, seg.start + seg.len, next);
    if (seg.context_begin < 0 || seg.context_begin > seg.context_end || seg.context_end > n_cached + seg.start)
      fail("segment {} has context keys [{}, {}), not a range inside [0, {}] (the keys before it: cached + new)", s,
           seg.context_begin, seg.context_end, n_cached + seg.start);
    next = seg.start + seg.len;
  }
  if (next != T) fail("segments cover {} of the {} tokens", next, T);
  for (int32_t row : request.logit_rows)
    if (row < 0 || row >= T) fail("logit row {} is outside the {} tokens", row, T);
  for (int32_t v : request.vocab_rows)
    if (v < 0 || v >= config.vocab_size) fail("vocabulary row {} is outside [0, {})", v, config.vocab_size);
}

}  // namespace sift
