#pragma once
// Model: a decoder-only transformer (Qwen3 / Qwen2 / Llama) loaded from a Hugging Face
// directory, computing in F32 on the CPU.
//
// The attention structure is explicit and segment-based, so the multi-item layout costs
// O(Lq^2 + N*Li*(Lq+Li)) and never builds a T x T mask:
//
//   key space of one forward call = [cached tokens 0..C-1] ++ [new tokens C..C+T-1]
//   Segment {start, len, context_len}: new tokens start..start+len-1 (0-based among the
//   new tokens) each see keys [0, context_len) and the segment's own tokens up to and
//   including themselves (causal inside the segment). context_len may reach into the new
//   tokens (it counts in key space), but never into or past the segment itself.
//
//   plain causal prompt of T tokens      : {0, T, 0}
//   multi-item [q; c1..cN], no cache     : {0, Lq, 0}, {Lq+o_i, L_i, Lq} for each item
//   item against a cached query (prefix) : cache holds q (C = Lq); {0, L_i, Lq}
//   one decode step                      : {0, 1, C}
//
// Determinism: a token's outputs are a pure function of its own id, position and the
// keys/values it sees: kernels never split or order accumulation by the number of rows.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "model/config.h"

namespace sift {

struct Segment {
  int32_t start = 0;        // first new token of the segment
  int32_t len = 0;          // tokens in the segment
  int32_t context_len = 0;  // keys [0, context_len) every token of the segment also sees
};

// K/V of earlier tokens, per layer: (capacity, kv_dim) each. Appended to by forward()
// when given; truncate() drops the tail (prefix mode runs each item, then truncates).
class KvCache {
 public:
  KvCache(const ModelConfig& config, int64_t capacity);
  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }
  void truncate(int64_t n);
  float* keys(int64_t layer) { return k_[layer].data(); }
  float* values(int64_t layer) { return v_[layer].data(); }
  const float* keys(int64_t layer) const { return k_[layer].data(); }
  const float* values(int64_t layer) const { return v_[layer].data(); }
  void set_size(int64_t n);

 private:
  int64_t capacity_, size_ = 0, kv_dim_;
  std::vector<std::vector<float>> k_, v_;
};

struct ForwardRequest {
  std::span<const int32_t> ids;        // T new tokens
  std::span<const int32_t> positions;  // T RoPE positions
  std::vector<Segment> segments;       // must cover 0..T-1 in order, no gaps
  std::span<const int32_t> logit_rows; // which of the T new tokens get logits
  std::span<const int32_t> vocab_rows; // vocabulary rows to compute; empty = all
};

// logits: (logit_rows.size(), vocab_rows.size() or vocab_size), row-major.
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
  // Loads config.json and model.safetensors (or the sharded index) from dir.
  static std::unique_ptr<Model> load(const std::filesystem::path& dir);
  // The model of `config` with the weights of `checkpoint` (load() after reading config.json).
  static std::unique_ptr<Model> from_checkpoint(ModelConfig config, const Checkpoint& checkpoint);
  virtual ~Model() = default;
  virtual const ModelConfig& config() const = 0;
  // Runs the new tokens; if cache is given its tokens come first in key space and the new
  // tokens' K/V are appended to it (it must have room).
  virtual ForwardResult forward(const ForwardRequest& request, KvCache* cache = nullptr) const = 0;
};

// Checks a request against the model and cache; throws Error naming the problem.
void validate_request(const ModelConfig& config, const ForwardRequest& request, int64_t n_cached);

}  // namespace sift
