// Model: loading, and one-off forward calls (model/model.h).
#include "model/model.h"

#include "core/error.h"
#include "io/labeler_files.h"
#include "core/log.h"
#include "io/checkpoint.h"
#include "model/session.h"

namespace sift {

Model::Model(ModelConfig config, ModelWeights weights)
    : config_(std::move(config)), weights_(std::move(weights)), rope_(rope_parameters(config_)) {}

std::unique_ptr<Model> Model::load(const std::filesystem::path& dir, WeightStorage storage) {
  check_model_directory(dir);
  ModelConfig config = load_model_config(dir / "config.json");
  return from_checkpoint(std::move(config), Checkpoint::open(dir), storage);
}

std::unique_ptr<Model> Model::from_checkpoint(ModelConfig config, const Checkpoint& checkpoint, WeightStorage storage) {
  ModelWeights weights = load_weights(checkpoint, config, storage);
  spdlog::debug("loaded {} ({} layers, hidden {}) from {}, weights {} ({:.1f} MiB)", config.architecture->hf_name,
                config.n_layers, config.hidden_size, checkpoint.dir().string(), weight_storage_name(storage),
                weights.bytes() / 1048576.0);
  return std::make_unique<Model>(std::move(config), std::move(weights));
}

ForwardResult Model::forward(const ForwardRequest& request) const {
  Session session(*this);
  const LogitsView logits = session.forward(request);
  return {logits.n_rows, logits.n_cols, std::vector<float>(logits.data, logits.data + logits.n_rows * logits.n_cols)};
}

}  // namespace sift
