#pragma once
// The state of a training run, saved so a killed run resumes exactly:
//
//   DIR/state.pt      torch archive: "parameters/<i>" (model parameters in named_parameters
//                     order), "optimizer" (AdamW moments and step counts), "rng" (torch's
//                     default CPU generator state); with early stopping also "best/<i>", the
//                     best evaluation's weights (once there is one)
//   DIR/trainer.json  {"format": "sift.train-checkpoint/1", "step": s, "loss_ema": ...,
//                      "loss_ema_weight": ..., "run": {the run's fingerprint}}, with early
//                      stopping also "early_stopping": {history, best, best_step, ...}
//
// Data order needs no state of its own: the batch plan is a function of the seed, so the
// step is the data position. Written into DIR.tmp, then swapped in by renames
// (DIR -> DIR.old, DIR.tmp -> DIR, remove DIR.old), so a kill at any moment leaves a
// complete checkpoint in DIR or, between the two renames, in DIR.old (read then).
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <filesystem>

#include "train/early_stopping.h"
#include "train/torch_model.h"

namespace sift::train {

struct TrainProgress {
  int64_t step = 0;
  double loss_ema = 0;
  double loss_ema_weight = 0;
};

// early_stopping's state is saved when it is enabled.
void save_train_checkpoint(const std::filesystem::path& dir, const TorchModel& model,
                           torch::optim::Optimizer& optimizer, const TrainProgress& progress,
                           const EarlyStopping& early_stopping, const nlohmann::json& fingerprint);

// Restores model, optimizer, RNG and (when enabled) early_stopping; Error when there is no
// checkpoint or its fingerprint differs from `fingerprint` (naming the first field that
// differs): a field either side has and the other lacks differs too (a generate run's
// "objective" against a label run's none).
TrainProgress load_train_checkpoint(const std::filesystem::path& dir, TorchModel& model,
                                    torch::optim::Optimizer& optimizer, EarlyStopping& early_stopping,
                                    const nlohmann::json& fingerprint);

}  // namespace sift::train
