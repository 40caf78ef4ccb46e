#include "model/random_checkpoint.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/parallel.h"
#include "io/atomic_file.h"
#include "io/safetensors_writer.h"
#include "model/checkpoint_layout.h"

namespace sift {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Approximately N(0, 1) from one 64-bit hash, cheaply (no transcendental functions): the
// sum of its four 16-bit fields as uniforms on [0, 1) has mean 2 and variance 4/12, so
// (sum - 2) * sqrt(3) has mean 0 and variance 1 (Irwin-Hall, bounded at +-3.46).
float standard_normal(uint64_t hash) {
  const uint32_t sum = static_cast<uint32_t>(hash & 0xFFFF) + static_cast<uint32_t>((hash >> 16) & 0xFFFF) +
                       static_cast<uint32_t>((hash >> 32) & 0xFFFF) + static_cast<uint32_t>(hash >> 48);
  constexpr float kSqrt3 = 1.7320508075688772f;
  return (static_cast<float>(sum) * 0x1p-16f - 2.0f) * kSqrt3;
}

struct Distribution {
  float mean, std;
};

Distribution distribution_for(const TensorSpec& spec, const ModelConfig& c) {
  switch (spec.role) {
    case TensorRole::Embedding:
    case TensorRole::OutputHead: return {0.0f, 2.0f / std::sqrt(static_cast<float>(c.hidden_size))};
    case TensorRole::Projection: return {0.0f, 1.0f / std::sqrt(static_cast<float>(spec.shape[1]))};
    case TensorRole::Norm: return {1.0f, 0.1f};
    case TensorRole::Bias: return {0.0f, 0.1f};
  }
  return {0.0f, 0.0f};
}

}  // namespace

ModelConfig preset_model_config(std::string_view preset, const Architecture& architecture) {
  ModelConfig c;
  c.architecture = &architecture;
  c.vocab_size = 151936;
  c.tie_word_embeddings = true;
  if (preset == "tiny") {
    c.hidden_size = 64, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.head_dim = 16, c.intermediate_size = 128;
  } else if (preset == "small") {
    c.hidden_size = 512, c.n_layers = 4, c.n_heads = 8, c.n_kv_heads = 4, c.head_dim = 64, c.intermediate_size = 1536;
  } else if (preset == "qwen3-0.6b") {
    c.hidden_size = 1024, c.n_layers = 28, c.n_heads = 16, c.n_kv_heads = 8, c.head_dim = 128;
    c.intermediate_size = 3072;
  } else if (preset == "qwen3-4b") {
    c.hidden_size = 2560, c.n_layers = 36, c.n_heads = 32, c.n_kv_heads = 8, c.head_dim = 128;
    c.intermediate_size = 9728;
  } else {
    fail("unknown checkpoint preset \"{}\" (known: tiny, small, qwen3-0.6b, qwen3-4b)", preset);
  }
  c.rope_theta = architecture.defaults.rope_theta;
  c.rms_norm_eps = architecture.defaults.rms_norm_eps;
  c.max_position_embeddings = architecture.defaults.max_position_embeddings;
  return c;
}

void write_random_checkpoint(const std::filesystem::path& dir, const ModelConfig& config, DType dtype, uint64_t seed) {
  const nlohmann::json config_json = model_config_to_json(config);
  const ModelConfig checked = parse_model_config(config_json, "random checkpoint config");
  std::filesystem::create_directories(dir);
  write_file_atomically(dir / "config.json", config_json.dump(2) + "\n");
  std::vector<TensorSource> sources;
  const std::vector<TensorSpec> layout = checkpoint_layout(checked);
  for (size_t t = 0; t < layout.size(); ++t) {
    const Distribution dist = distribution_for(layout[t], checked);
    const uint64_t stream = splitmix64(seed ^ splitmix64(t + 1));
    sources.push_back({layout[t].name, layout[t].shape, [dist, stream](int64_t first, std::span<float> out) {
                         parallel_for(static_cast<int64_t>(out.size()), [&](int64_t i) {
                           const uint64_t hash = splitmix64(stream + static_cast<uint64_t>(first + i));
                           out[static_cast<size_t>(i)] = dist.mean + dist.std * standard_normal(hash);
                         });
                       }});
  }
  write_safetensors(dir / "model.safetensors", sources, dtype, {{"generator", "sift make-checkpoint"},
                                                                  {"seed", std::to_string(seed)}});
}

}  // namespace sift
