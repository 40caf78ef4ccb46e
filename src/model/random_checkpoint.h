#pragma once
// Random checkpoints of any shape, so tests and benchmarks need no download.
//
// write_random_checkpoint(dir, config, dtype, seed) writes dir/config.json and
// dir/model.safetensors (tensor names and shapes of model/checkpoint_layout.h), streaming
// tensor by tensor. Values, with z of mean 0 and variance 1 (sum of four uniforms, so bell
// shaped and bounded at +-3.46):
//   embedding / lm_head : z * 2 / sqrt(H)      logits = RMSNorm(x) . row ~ N(0, ~2^2): O(1..10)
//   projection (out, in): z / sqrt(in)          activations keep O(1) scale through the layers
//   norm weights        : 1 + 0.1 z
//   biases              : 0.1 z
// Element k of tensor t is a pure function of (seed, t, k) (counter-based hashing), so the
// file is the same bytes whatever the thread count or chunking.
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "io/dtype.h"
#include "model/config.h"

namespace sift {

// Presets: "tiny" (hidden 64, 2 layers, 4 heads, 2 KV heads, head_dim 16, intermediate 128),
// "small" (512, 4 layers, 8 heads, 4 KV heads, head_dim 64, intermediate 1536) and
// "qwen3-0.6b" (1024, 28 layers, 16 heads, 8 KV heads, head_dim 128, intermediate 3072) and
// "qwen3-4b" (2560, 36 layers, 32 heads, 8 KV heads, head_dim 128, intermediate 9728);
// all with vocab 151936, tied embeddings and no attention_bias, plus the architecture's
// defaults (rope_theta, rms_norm_eps, max_position_embeddings). Error for an unknown preset.
ModelConfig preset_model_config(std::string_view preset, const Architecture& architecture);

// Writes the checkpoint; the config is validated first (through parse_model_config of its
// own config.json), so what is written always loads.
void write_random_checkpoint(const std::filesystem::path& dir, const ModelConfig& config, DType dtype, uint64_t seed);

}  // namespace sift
