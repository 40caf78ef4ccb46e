#pragma once
// Trainer: the optimiser loop of `sift train`.
//
//   for step s in [start, stop):
//     batch  = collate(layouts of run_batches(...)[s])       (batch_plan.h: fixed by the seed)
//     loss   = label_only_loss(model, batch)                  (loss.h: mean NLL of the readout rows'
//                                                              targets; which rows depends on the
//                                                              objective, example_set.h), or with
//                                                              soft targets (--targets scores)
//                                                              soft_label_loss: the BCE to the
//                                                              teacher's P(YES)
//     grads  = d loss / d params;  clip_grad_norm_(params, clip)
//     lr     = LrSchedule(lr, warmup, total).at(s)            (linear warmup, cosine decay)
//     AdamW step (decoupled weight decay on matrices only; norms and biases undecayed)
//
// Every save_every steps (and when a run stops) the full training state goes to
// checkpoint_dir (train_checkpoint.h); with resume the run continues from it exactly: the
// same weights, optimiser moments, step, data position and RNG state, so training 2N steps
// at once or N + (resume) N gives the same weights. A non-finite loss or gradient norm stops
// the run before the optimiser step, with an Error naming the last good checkpoint. Progress
// goes to a ProgressReporter: step/total, loss EMA, lr, pairs/s, tokens/s, ETA.
//
// With early stopping (early_stopping.h) the trainer calls the run's Validator every
// eval_every steps and at the last step, stops at the plateau, and restore_best() puts the
// best evaluation's weights back into the model before they are written.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/progress.h"
#include "train/batch_plan.h"
#include "train/early_stopping.h"
#include "train/example_set.h"
#include "train/examples.h"
#include "train/sequence_layout.h"
#include "train/torch_model.h"

namespace sift::train {

struct TrainOptions {
  int64_t epochs = 0;  // whole passes over the data (when steps is 0: the run length)
  int64_t steps = 0;   // optimiser steps (cuts the epochs short when both are given)
  int64_t batch_size = 32;  // labeled pairs per step
  double lr = 3e-4;
  double warmup = 0.05;  // fraction of the steps
  double weight_decay = 0.01;
  double clip = 1.0;     // max global gradient norm; <= 0 disables clipping
  bool pack = false;     // MIS-packed rows instead of single-candidate pairs (objective label)
  uint64_t seed = 1;
  int64_t save_every = 0;                 // steps between checkpoints; 0 = only at the end
  std::filesystem::path checkpoint_dir;   // empty = no checkpoints
  bool resume = false;
  EarlyStoppingOptions early_stopping;    // off unless patience > 0 (needs a Validator)
  std::string validation_name = "validation";  // what progress lines call the Validator's metric
};

// The validation metric of early stopping, measured on the model as it is: higher is better.
using Validator = std::function<double()>;

struct TrainSummary {
  int64_t steps_done = 0;        // optimiser steps run by this call
  int64_t step = 0;              // the global step reached
  double loss_ema = 0;
  int64_t n_pairs = 0;           // labeled pairs trained on by this call (ExampleSize.n_labels)
  int64_t n_tokens = 0;          // real tokens processed by this call
  int64_t n_padded_tokens = 0;   // tokens including padding
  double seconds = 0;
  bool stopped_early = false;    // early stopping ended the run before its last planned step
  double pairs_per_second() const { return seconds > 0 ? n_pairs / seconds : 0; }
};

class Trainer {
 public:
  // Trains on `examples`. With options.resume, the state is read from
  // options.checkpoint_dir (Error if there is none or it belongs to another run setup, the
  // objective included). `validate` is required with early stopping, unused without.
  Trainer(TorchModel& model, ExampleSet examples, TrainOptions options, Validator validate = {});
  // Label-only training on rows (which must outlive the trainer): label_examples(rows, options.pack).
  Trainer(TorchModel& model, const std::vector<EncodedRow>& rows, TrainOptions options, Validator validate = {});
  ~Trainer();

  int64_t total_steps() const { return static_cast<int64_t>(plan_.size()); }
  int64_t step() const { return step_; }

  // Trains up to stop_step (default: all steps), checkpointing as configured; `progress` (if
  // given) is updated after every step with the loss EMA, lr, pairs/s and tokens/s.
  TrainSummary run(int64_t stop_step = -1, ProgressReporter* progress = nullptr);
  // Writes the training state to options.checkpoint_dir now.
  void save_checkpoint();

  const EarlyStopping& early_stopping() const { return early_stopping_; }
  // Early stopping: the best evaluation's weights into the model (nothing when there is none).
  void restore_best();

  // The sequence of example e (a pair, a packed row, a generation row).
  SequenceLayout layout(int32_t example) const { return examples_.layout(example); }
  // All sequences of plan step s, collated.
  Batch batch(int64_t s) const;

 private:
  nlohmann::json fingerprint() const;
  void train_step(int64_t s, TrainSummary& summary);
  // Error: the run diverged at step s, naming the last good checkpoint.
  [[noreturn]] void diverged(const std::string& what, int64_t s) const;

  TorchModel& model_;
  ExampleSet examples_;
  TrainOptions options_;
  Validator validate_;
  EarlyStopping early_stopping_;
  std::vector<std::vector<int32_t>> plan_;
  std::unique_ptr<torch::optim::AdamW> optimizer_;
  int64_t step_ = 0;
  int64_t last_saved_step_ = -1;  // the step of the checkpoint on disk; -1: none
  double loss_ema_ = 0;  // bias-corrected below via loss_ema_weight_
  double loss_ema_weight_ = 0;
};

}  // namespace sift::train
