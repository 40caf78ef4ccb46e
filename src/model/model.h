#pragma once
// Model: a decoder-only transformer (Qwen3 / Qwen2 / Llama) loaded from a Hugging Face
// directory, computing in F32 on the CPU (weights held in F32, BF16, F16 or Q8: sift/weight_storage.h). Its weights are read-only once loaded; forward
// calls run on a Session (model/session.h), which owns the KV cache and the workspace.
//
// A forward request is T new tokens with their RoPE positions, cut into segments that say
// which keys each token sees (model/segment.h), the rows whose logits are read, and the
// vocabulary rows to compute. The attention structure is explicit, so the multi-item layout
// costs O(Lq^2 + N*Li*(Lq+Li)) and never builds a T x T mask.
//
// Determinism: a token's outputs are a pure function of its own id, position and the
// keys/values it sees: kernels never split or order accumulation by the number of rows, so
// the same token gives the same bits whatever else shares its call (docs/engine.md).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "kernels/rope.h"
#include "model/config.h"
#include "model/segment.h"
#include "model/weights.h"

namespace sift {

struct ForwardRequest {
  std::span<const int32_t> ids;        // T new tokens
  std::span<const int32_t> positions;  // T RoPE positions
  std::span<const Segment> segments;   // cover tokens 0..T-1 in order, no gaps
  std::span<const int32_t> logit_rows; // which of the T new tokens get logits
  std::span<const int32_t> vocab_rows; // vocabulary rows to compute; empty = all
};

// Logits (n_rows, n_cols), row-major: one row per logit row, one column per vocabulary row.
struct LogitsView {
  int64_t n_rows = 0;
  int64_t n_cols = 0;
  const float* data = nullptr;
  std::span<const float> row(int64_t i) const { return {data + i * n_cols, static_cast<size_t>(n_cols)}; }
};

// The same, owning its values.
struct ForwardResult {
  int64_t n_rows = 0;
  int64_t n_cols = 0;
  std::vector<float> logits;
  std::span<const float> row(int64_t i) const {
    return {logits.data() + i * n_cols, static_cast<size_t>(n_cols)};
  }
};

class Checkpoint;

class Model {
 public:
  // Loads config.json and model.safetensors (or the sharded index) from dir, the weight
  // matrices held as `storage` says (sift/weight_storage.h).
  static std::unique_ptr<Model> load(const std::filesystem::path& dir, WeightStorage storage = WeightStorage::Auto);
  // The model of `config` with the weights of `checkpoint` (load() after reading config.json).
  static std::unique_ptr<Model> from_checkpoint(ModelConfig config, const Checkpoint& checkpoint,
                                                WeightStorage storage = WeightStorage::Auto);
  Model(ModelConfig config, ModelWeights weights);

  const ModelConfig& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }
  const Rope& rope() const { return rope_; }

  // One request in a fresh session, no cache (for tools and tests; a Session reuses its
  // buffers across calls).
  ForwardResult forward(const ForwardRequest& request) const;

 private:
  ModelConfig config_;
  ModelWeights weights_;
  Rope rope_;
};

// Checks a request against the model and the keys cached before it; throws Error naming
// the problem.
void validate_request(const ModelConfig& config, const ForwardRequest& request, int64_t n_cached);

}  // namespace sift
