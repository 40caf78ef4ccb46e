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
  torch::Tensor logits;     // (n, V) answer-row logits; soft_label_loss: (n, 2), YES then NO
  int64_t n_rows = 0;
};

LossOutput label_only_loss(const TorchModel& model, const Batch& batch);

// Soft-label loss (`sift train --targets scores`, distillation): the teacher's P(YES) t_r as
// the target of the student's score at answer row r. With d_r = l_yes - l_no (the two answer
// logits) and the student's score s_r = sigmoid(d_r), exactly what `sift score` reads,
//
//   loss = mean_r  -t_r log sigmoid(d_r) - (1 - t_r) log sigmoid(-d_r)
//        = mean_r  softplus(d_r) - t_r d_r                       (binary cross-entropy on d)
//
// computed from d by binary_cross_entropy_with_logits (log-sum-exp form: finite for any d).
// d loss_r / d d_r = sigmoid(d_r) - t_r: zero where the student's score is the teacher's,
// its sign pushes the score towards t. Against label_only_loss above:
//  - with t in {0, 1} it is the two-way cross-entropy -log sigmoid(+-d) of the hard label,
//    which has the same gradient direction on d as the full-vocabulary loss (it raises l_yes
//    over l_no for YES) but not the same value: the full softmax also counts the mass of every
//    other token at the answer position, which this loss leaves free (the score renormalises
//    over the two answers, so it never reads them);
//  - it reads two vocabulary rows, not V, per answer row;
//  - its minimum for t in (0, 1) is d = logit(t), not +-infinity: the student learns how sure
//    the teacher is, not only which side it is on.
// batch.soft_targets must be defined (collate of sequences with soft targets).
LossOutput soft_label_loss(const TorchModel& model, const Batch& batch, int64_t yes_id, int64_t no_id);

// The soft loss on given logit differences d (n) and targets t (n): the scalar above.
torch::Tensor soft_label_loss_on_differences(const torch::Tensor& d, const torch::Tensor& t);

// score_r = exp(l_yes) / (exp(l_yes) + exp(l_no)) = sigmoid(l_yes - l_no) at each answer row:
// (n) float32, computed from the two vocabulary rows only (as the scoring engine).
torch::Tensor answer_scores(const TorchModel& model, const Batch& batch, int64_t yes_id, int64_t no_id);

}  // namespace sift::train
