#include "train/loss.h"

namespace sift::train {

LossOutput label_only_loss(const TorchModel& model, const Batch& batch) {
  const torch::Tensor hidden = model.hidden_at(batch.ids, batch.positions, batch.mask, batch.rows);  // (n, H)
  LossOutput out;
  out.logits = model.logits(hidden);                                                                   // (n, V)
  out.loss = torch::nn::functional::cross_entropy(out.logits, batch.targets);  // mean of -log softmax[target]
  out.n_rows = batch.targets.size(0);
  return out;
}

torch::Tensor answer_scores(const TorchModel& model, const Batch& batch, int64_t yes_id, int64_t no_id) {
  const torch::Tensor hidden = model.hidden_at(batch.ids, batch.positions, batch.mask, batch.rows);
  const torch::Tensor logits = model.logits(hidden, torch::tensor({yes_id, no_id}, torch::kInt64));  // (n, 2)
  return torch::sigmoid(logits.select(1, 0) - logits.select(1, 1));
}

}  // namespace sift::train
