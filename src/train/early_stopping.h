#pragma once
// Early stopping: train to the validation plateau, keep the best weights.
//
// Every eval_every steps (and at the run's last step) the trainer measures a validation metric,
// higher is better (train_run.h: agreement for the label and generate objectives, minus the
// mean next-token loss for lm). An evaluation improves on the best when
//
//   value > best + min_delta          (the first evaluation always does)
//
// and then becomes the best: its value, step and a copy of the weights are kept. After
// `patience` evaluations in a row without an improvement the run stops; --steps / --epochs are
// then only a cap. The state (history, best, best weights) is part of the training checkpoint
// (train_checkpoint.h), so a resumed run stops where the uninterrupted one stops.
#include <torch/torch.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "train/torch_model.h"

namespace sift::train {

struct EarlyStoppingOptions {
  int64_t patience = 0;    // evaluations without improvement before stopping; 0: off
  int64_t eval_every = 0;  // steps between evaluations
  double min_delta = 0;    // the least gain that counts as an improvement

  bool enabled() const { return patience > 0; }
};

struct Evaluation {
  int64_t step = 0;
  double value = 0;
};

class EarlyStopping {
 public:
  explicit EarlyStopping(EarlyStoppingOptions options) : options_(options) {}

  const EarlyStoppingOptions& options() const { return options_; }
  // Whether the trainer evaluates after reaching `step` of a run of total_steps.
  bool evaluates_at(int64_t step, int64_t total_steps) const;
  // Records the evaluation at `step`; copies the model's weights when it is the new best.
  void record(int64_t step, double value, const TorchModel& model);
  bool stopped() const { return stopped_; }

  bool has_best() const { return best_step_ >= 0; }
  int64_t best_step() const { return best_step_; }
  double best_value() const { return best_; }
  const std::vector<Evaluation>& history() const { return history_; }
  // The kept weights, in TorchModel::named_parameters order (empty before any evaluation).
  const std::vector<torch::Tensor>& best_weights() const { return best_weights_; }

  // The state apart from the weights, for trainer.json; from_json restores it (and the weights
  // are given back with set_best_weights).
  nlohmann::json to_json() const;
  void from_json(const nlohmann::json& state, const std::string& where);
  void set_best_weights(std::vector<torch::Tensor> weights) { best_weights_ = std::move(weights); }

 private:
  EarlyStoppingOptions options_;
  std::vector<Evaluation> history_;
  double best_ = 0;
  int64_t best_step_ = -1;
  int64_t evaluations_since_best_ = 0;
  bool stopped_ = false;
  std::vector<torch::Tensor> best_weights_;
};

}  // namespace sift::train
