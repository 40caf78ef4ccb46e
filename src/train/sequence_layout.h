#pragma once
// One training sequence as the model sees it, and a padded batch of them.
//
//   single candidate [q; c]     : one causal prompt, the answer read at the last token of c
//   MIS-packed [q; c1; ...; cN] : the multi-item layout of scoring/plan.h (append_request),
//                                 one readout per item
// Segments mean what they mean to the engine (model/segment.h: visible_keys); the torch
// mask is built from that same rule, so training sees exactly what scoring computes.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "model/model.h"
#include "train/torch_model.h"

namespace sift::train {

struct SequenceLayout {
  std::vector<int32_t> ids;
  std::vector<int32_t> positions;
  std::vector<Segment> segments;
  std::vector<int32_t> readout;  // token indices of the answer positions
  std::vector<int32_t> targets;  // answer token id per readout row
  std::vector<float> soft_targets;  // --targets scores: the teacher's P(YES) per readout row; else empty
};

// [q; c] with the answer read at the last token of c (c must not be empty).
SequenceLayout single_candidate_layout(const std::vector<int32_t>& query, const std::vector<int32_t>& item,
                                       int32_t target);

// [q; c1; ...; cN] with the isolation mask and reused positions; one readout per item.
SequenceLayout packed_layout(const std::vector<int32_t>& query, const std::vector<std::vector<int32_t>>& items,
                             const std::vector<int32_t>& targets);
// The same with a soft target per item (--targets scores; empty: none).
SequenceLayout packed_layout(const std::vector<int32_t>& query, const std::vector<std::vector<int32_t>>& items,
                             const std::vector<int32_t>& targets, const std::vector<float>& soft_targets);

// mask (T, T) bool of one layout padded to T tokens: true where a token may attend. Padding
// tokens see only themselves (no softmax row is empty; their outputs are never read).
torch::Tensor layout_mask(const std::vector<Segment>& segments, int64_t n_tokens, int64_t padded_len);

// A right-padded batch (a batch mixes sequences with soft targets and without them never:
// Error): B sequences of at most T tokens.
struct Batch {
  torch::Tensor ids;        // (B, T) int64, padding id 0
  torch::Tensor positions;  // (B, T) int64, padding position 0
  torch::Tensor mask;       // (B, T, T) bool
  ReadoutRows rows;         // n answer positions over the batch
  torch::Tensor targets;    // (n) int64 answer token ids
  torch::Tensor soft_targets;  // (n) float32 teacher P(YES) when every sequence has them; else undefined
  int64_t n_tokens = 0;     // real (unpadded) tokens
  int64_t n_padded_tokens = 0;  // B * T
};

Batch collate(const std::vector<const SequenceLayout*>& sequences);
// The same, for sequences held in one vector.
Batch collate(const std::vector<SequenceLayout>& sequences);

}  // namespace sift::train
