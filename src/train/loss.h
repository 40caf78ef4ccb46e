#pragma once
// Label-only loss (paper §3.2): one answer token per labeled pair, every other position
// masked. For answer row r of a batch (the last token of a candidate's prompt):
//
//   logits_r (V) = rms_norm(h_r) * w_final @ W_out^T           over the FULL vocabulary
//   loss = mean_r  -log softmax(logits_r)[target_r]             target = YES id or NO id
//
// Choice: the standard language-model NLL over the whole vocabulary (as the paper's
// fine-tuning does), not a two-way softmax over {YES, NO}. It also pushes every other token
// down at the answer position, so a checkpoint stays a sensible LM; scoring then renormalises
// over the two answer rows (score = sigmoid(l_yes - l_no)), which the full softmax ranks
// identically. The mean is over answer rows, so a MIS-packed batch and the same pairs as
// single-candidate sequences give the same loss (and gradients). The other objectives read
// other rows with the same loss: every answer-list token (generate), every token (lm).
#include <torch/torch.h>

#include "train/sequence_layout.h"
#include "train/torch_model.h"

namespace sift::train {

struct LossOutput {
  torch::Tensor loss;       // scalar, mean over the batch's answer rows
  torch::Tensor logits;     // (n, V) answer-row logits
  int64_t n_rows = 0;
};

LossOutput label_only_loss(const TorchModel& model, const Batch& batch);

// score_r = exp(l_yes) / (exp(l_yes) + exp(l_no)) = sigmoid(l_yes - l_no) at each answer row:
// (n) float32, computed from the two vocabulary rows only (as the scoring engine).
torch::Tensor answer_scores(const TorchModel& model, const Batch& batch, int64_t yes_id, int64_t no_id);

}  // namespace sift::train
