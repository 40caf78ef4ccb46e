#include "train/loss.h"

#include "core/error.h"

namespace sift::train {

LossOutput label_only_loss(const TorchModel& model, const Batch& batch) {
  const torch::Tensor hidden = model.hidden_at(batch.ids, batch.positions, batch.mask, batch.rows);  // (n, H)
  LossOutput out;
  out.logits = model.logits(hidden);                                                                   // (n, V)
  out.loss = torch::nn::functional::cross_entropy(out.logits, batch.targets);  // mean of -log softmax[target]
  out.n_rows = batch.targets.size(0);
  return out;
}

torch::Tensor soft_label_loss_on_differences(const torch::Tensor& d, const torch::Tensor& t) {
  // mean of softplus(d) - t d = -t log sigmoid(d) - (1 - t) log sigmoid(-d), stably
  return torch::nn::functional::binary_cross_entropy_with_logits(d, t.to(d.dtype()));
}

LossOutput soft_label_loss(const TorchModel& model, const Batch& batch, int64_t yes_id, int64_t no_id) {
  if (!batch.soft_targets.defined()) fail("soft_label_loss: the batch has no soft targets");
  const torch::Tensor hidden = model.hidden_at(batch.ids, batch.positions, batch.mask, batch.rows);  // (n, H)
  LossOutput out;
  out.logits = model.logits(hidden, torch::tensor({yes_id, no_id}, torch::kInt64));                  // (n, 2)
  out.loss = soft_label_loss_on_differences(out.logits.select(1, 0) - out.logits.select(1, 1), batch.soft_targets);
  out.n_rows = batch.soft_targets.size(0);
  return out;
}

torch::Tensor answer_scores(const TorchModel& model, const Batch& batch, int64_t yes_id, int64_t no_id) {
  const torch::Tensor hidden = model.hidden_at(batch.ids, batch.positions, batch.mask, batch.rows);
  const torch::Tensor logits = model.logits(hidden, torch::tensor({yes_id, no_id}, torch::kInt64));  // (n, 2)
  return torch::sigmoid(logits.select(1, 0) - logits.select(1, 1));
}

}  // namespace sift::train
