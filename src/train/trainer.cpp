#include "train/trainer.h"

#include <chrono>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/log.h"
#include "train/loss.h"
#include "train/lr_schedule.h"
#include "train/train_checkpoint.h"

namespace sift::train {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kLossEmaDecay = 0.98;

std::unique_ptr<torch::optim::AdamW> make_optimizer(const TorchModel& model, const TrainOptions& o) {
  std::vector<torch::Tensor> decayed, undecayed;
  for (const NamedParameter& p : model.named_parameters()) (p.decays ? decayed : undecayed).push_back(p.tensor);
  using torch::optim::AdamWOptions;
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decayed, std::make_unique<AdamWOptions>(AdamWOptions(o.lr).weight_decay(o.weight_decay)));
  groups.emplace_back(undecayed, std::make_unique<AdamWOptions>(AdamWOptions(o.lr).weight_decay(0.0)));
  return std::make_unique<torch::optim::AdamW>(std::move(groups), AdamWOptions(o.lr));
}

}  // namespace

Trainer::Trainer(TorchModel& model, const std::vector<EncodedRow>& rows, TrainOptions options, Validator validate)
    : Trainer(model, label_examples(rows, options.pack), options, std::move(validate)) {}

Trainer::Trainer(TorchModel& model, ExampleSet examples, TrainOptions options, Validator validate)
    : model_(model),
      examples_(std::move(examples)),
      options_(std::move(options)),
      validate_(std::move(validate)),
      early_stopping_(options_.early_stopping) {
  if (options_.resume && options_.checkpoint_dir.empty()) fail("resume needs a checkpoint directory");
  if (early_stopping_.options().enabled() && (!validate_ || early_stopping_.options().eval_every < 1))
    fail("early stopping needs validation data and an evaluation interval of at least one step");
  if (examples_.sizes.empty()) fail("no labeled pairs to train on");
  plan_ = run_batches(examples_.sizes, options_.batch_size, options_.seed, options_.epochs, options_.steps);
  optimizer_ = make_optimizer(model_, options_);
  if (options_.resume) {
    const TrainProgress p =
        load_train_checkpoint(options_.checkpoint_dir, model_, *optimizer_, early_stopping_, fingerprint());
    step_ = p.step;
    loss_ema_ = p.loss_ema;
    loss_ema_weight_ = p.loss_ema_weight;
    last_saved_step_ = p.step;
    spdlog::info("resuming at step {}/{} from {}", step_, total_steps(), options_.checkpoint_dir.string());
  }
}

Trainer::~Trainer() = default;

nlohmann::json Trainer::fingerprint() const {
  // What fixes the trajectory: a resumed run must agree on all of it.
  nlohmann::json run = {{"n_examples", examples_.sizes.size()}, {"total_steps", total_steps()},
                        {"batch_size", options_.batch_size},    {"pack", options_.pack},
                        {"seed", options_.seed},                {"lr", options_.lr},
                        {"warmup", options_.warmup},            {"weight_decay", options_.weight_decay},
                        {"clip", options_.clip},                {"n_parameters", model_.named_parameters().size()}};
  // Label runs predate the field: their checkpoints carry none and still resume; a generate
  // checkpoint carries it, so neither objective resumes the other's (train_checkpoint.h).
  if (examples_.objective != "label") run["objective"] = examples_.objective;
  // Likewise hard-label runs carry no "targets": a soft-label run resumes only a soft-label one.
  if (examples_.soft_answer) run["targets"] = "scores";
  // Runs without early stopping predate it: their checkpoints carry none of these fields.
  if (const EarlyStoppingOptions& e = early_stopping_.options(); e.enabled())
    run["early_stopping"] = {{"patience", e.patience}, {"eval_every", e.eval_every}, {"min_delta", e.min_delta}};
  return run;
}

Batch Trainer::batch(int64_t s) const {
  std::vector<SequenceLayout> layouts;
  for (int32_t e : plan_[static_cast<size_t>(s)]) layouts.push_back(layout(e));
  return collate(layouts);
}

void Trainer::train_step(int64_t s, TrainSummary& summary) {
  const Batch b = batch(s);
  optimizer_->zero_grad();
  const LossOutput out = examples_.soft_answer
                             ? soft_label_loss(model_, b, examples_.soft_answer->yes, examples_.soft_answer->no)
                             : label_only_loss(model_, b);
  // A non-finite loss or gradient stops the run before it reaches the weights, so the last
  // checkpoint saved holds finite weights.
  const double loss = out.loss.item<double>();
  if (!std::isfinite(loss)) diverged(fmt::format("the loss is {}", loss), s);
  out.loss.backward();
  // The global gradient norm (clipped to `clip` when clip > 0; an infinite limit only measures it).
  const double limit = options_.clip > 0 ? options_.clip : std::numeric_limits<double>::infinity();
  const double norm = torch::nn::utils::clip_grad_norm_(model_.parameters(), limit);
  if (!std::isfinite(norm)) diverged(fmt::format("the gradient norm is {}", norm), s);
  const double lr = LrSchedule{options_.lr, options_.warmup, total_steps()}.at(s);
  for (auto& group : optimizer_->param_groups()) static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
  optimizer_->step();

  loss_ema_ = kLossEmaDecay * loss_ema_ + (1 - kLossEmaDecay) * loss;
  loss_ema_weight_ = kLossEmaDecay * loss_ema_weight_ + (1 - kLossEmaDecay);
  for (int32_t e : plan_[static_cast<size_t>(s)]) summary.n_pairs += examples_.sizes[static_cast<size_t>(e)].n_labels;
  summary.n_tokens += b.n_tokens;
  summary.n_padded_tokens += b.n_padded_tokens;
}

void Trainer::diverged(const std::string& what, int64_t s) const {
  const std::string kept =
      last_saved_step_ < 0
          ? std::string("no checkpoint was saved before it")
          : fmt::format("the last good checkpoint (step {}) is kept in {}: lower --lr and run again with --resume",
                        last_saved_step_, options_.checkpoint_dir.string());
  fail("training diverged at step {}: {} (--lr {} may be too high); {}", s, what, options_.lr, kept);
}

TrainSummary Trainer::run(int64_t stop_step, ProgressReporter* progress) {
  const int64_t stop = stop_step < 0 ? total_steps() : std::min(stop_step, total_steps());
  TrainSummary summary;
  const auto start = Clock::now();
  const int64_t first = step_;
  while (step_ < stop && !early_stopping_.stopped()) {
    train_step(step_, summary);
    ++step_;
    if (early_stopping_.evaluates_at(step_, total_steps())) {
      early_stopping_.record(step_, validate_(), model_);
      if (progress)
        progress->message(fmt::format("step {}: {} {:.6g} (best {:.6g} at step {}){}", step_, options_.validation_name,
                                      early_stopping_.history().back().value, early_stopping_.best_value(),
                                      early_stopping_.best_step(), early_stopping_.stopped() ? ": stopping" : ""));
    }
    const bool save_now = options_.save_every > 0 && step_ % options_.save_every == 0;
    if (!options_.checkpoint_dir.empty() && (save_now || step_ == stop || early_stopping_.stopped())) save_checkpoint();

    if (progress) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      progress->update(step_, fmt::format("loss {:.4f}, lr {:.2e}, {:.1f} {}/s, {:.0f} tokens/s",
                                          loss_ema_ / std::max(1e-12, loss_ema_weight_),
                                          LrSchedule{options_.lr, options_.warmup, total_steps()}.at(step_ - 1),
                                          summary.n_pairs / std::max(1e-9, elapsed), examples_.label_unit,
                                          summary.n_tokens / std::max(1e-9, elapsed)));
    }
  }
  summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  summary.steps_done = step_ - first;
  summary.step = step_;
  summary.stopped_early = early_stopping_.stopped() && step_ < total_steps();
  summary.loss_ema = loss_ema_ / std::max(1e-12, loss_ema_weight_);
  return summary;
}

void Trainer::save_checkpoint() {
  save_train_checkpoint(options_.checkpoint_dir, model_, *optimizer_, {step_, loss_ema_, loss_ema_weight_},
                        early_stopping_, fingerprint());
  last_saved_step_ = step_;
}

void Trainer::restore_best() {
  if (early_stopping_.has_best()) model_.copy_from(early_stopping_.best_weights());
}

}  // namespace sift::train
