#include "train/early_stopping.h"

#include "core/error.h"

namespace sift::train {

bool EarlyStopping::evaluates_at(int64_t step, int64_t total_steps) const {
  return options_.enabled() && (step % options_.eval_every == 0 || step == total_steps);
}

void EarlyStopping::record(int64_t step, double value, const TorchModel& model) {
  history_.push_back({step, value});
  if (best_step_ < 0 || value > best_ + options_.min_delta) {
    best_ = value;
    best_step_ = step;
    evaluations_since_best_ = 0;
    torch::NoGradGuard no_grad;
    best_weights_.clear();
    for (const NamedParameter& p : model.named_parameters()) best_weights_.push_back(p.tensor.detach().clone());
  } else if (++evaluations_since_best_ >= options_.patience) {
    stopped_ = true;
  }
}

nlohmann::json EarlyStopping::to_json() const {
  nlohmann::json history = nlohmann::json::array();
  for (const Evaluation& e : history_) history.push_back({e.step, e.value});
  return {{"history", history},
          {"best", best_},
          {"best_step", best_step_},
          {"evaluations_since_best", evaluations_since_best_},
          {"stopped", stopped_}};
}

void EarlyStopping::from_json(const nlohmann::json& state, const std::string& where) {
  try {
    history_.clear();
    for (const nlohmann::json& e : state.at("history"))
      history_.push_back({e.at(0).get<int64_t>(), e.at(1).get<double>()});
    best_ = state.at("best").get<double>();
    best_step_ = state.at("best_step").get<int64_t>();
    evaluations_since_best_ = state.at("evaluations_since_best").get<int64_t>();
    stopped_ = state.at("stopped").get<bool>();
  } catch (const nlohmann::json::exception& e) {
    fail("{}: the early-stopping state is malformed: {}", where, e.what());
  }
}

}  // namespace sift::train
