#pragma once
// ModelConfig: the fields of a Hugging Face config.json that the forward pass needs,
// validated. Anything sift does not support is an Error naming the field.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

#include "kernels/rope.h"
#include "model/architecture.h"

namespace sift {

// Upper bounds on config.json sizes (docs/limits.md): far above any
// released model of these families, and low enough that every product sift forms from them
// (num_attention_heads x head_dim x hidden_size, vocab_size x hidden_size, tokens x
// (q_dim + 2 kv_dim), ...) fits in int64 many times over. A config past one is an Error
// naming the field before anything is allocated.
namespace model_limits {
inline constexpr int64_t kHiddenSize = int64_t{1} << 16;          // 65,536 (Llama 3.1 405B: 16,384)
inline constexpr int64_t kLayers = 1024;                           // num_hidden_layers (405B: 126)
inline constexpr int64_t kHeads = 1024;                            // num_attention_heads (405B: 128)
inline constexpr int64_t kHeadDim = 1024;                          // head_dim (Gemma: 256)
inline constexpr int64_t kIntermediateSize = int64_t{1} << 20;     // 1,048,576 (405B: 53,248)
inline constexpr int64_t kVocabSize = int64_t{1} << 24;            // 16,777,216 (Gemma 3: 262,144)
inline constexpr int64_t kPositions = int64_t{1} << 24;            // max_position_embeddings (Llama 4: 10M)
inline constexpr double kRopeScalingFactor = 1024.0;               // factor, low/high_freq_factor (Llama 3: 32)
}  // namespace model_limits

struct RopeScaling {  // rope_scaling of type "llama3" (Architecture::rope_scaling_types); factor == 0: none
  double factor = 0.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  int64_t original_max_position_embeddings = 8192;
};

struct ModelConfig {
  const Architecture* architecture = nullptr;  // config.json "architectures"
  int64_t hidden_size = 0;
  int64_t n_layers = 0;
  int64_t n_heads = 0;
  int64_t n_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t intermediate_size = 0;
  int64_t vocab_size = 0;
  int64_t max_position_embeddings = 0;
  double rope_theta = 10000.0;
  double rms_norm_eps = 1e-6;
  bool tie_word_embeddings = false;
  bool attention_bias = false;  // config.json "attention_bias" (see BiasRule::IfAttentionBias)
  RopeScaling rope_scaling;
  int64_t bos_token_id = -1;
  int64_t eos_token_id = -1;

  // n_heads * head_dim and n_kv_heads * head_dim; an Error if the product overflows int64.
  int64_t q_dim() const;
  int64_t kv_dim() const;

  // The architecture's traits for this config.
  bool qk_norm() const { return architecture->qk_norm; }            // RMSNorm on q, k heads
  bool qkv_bias() const { return has_bias(architecture->qkv_bias); }  // q/k/v_proj biases
  bool o_bias() const { return has_bias(architecture->o_bias); }      // o_proj bias
  bool has_bias(BiasRule rule) const {
    return rule == BiasRule::Always || (rule == BiasRule::IfAttentionBias && attention_bias);
  }
};

// Every field within its range (model_limits; positive sizes, finite positive rope_theta and
// rms_norm_eps), head_dim even, num_attention_heads a multiple of num_key_value_heads, and
// rope_scaling one the architecture allows. An Error naming the config.json field otherwise.
void validate_model_config(const ModelConfig& config, const std::string& where);

// Reads and validates (validate_model_config) a config.json object.
ModelConfig parse_model_config(const nlohmann::json& config, const std::string& where);
ModelConfig load_model_config(const std::filesystem::path& config_json);
nlohmann::json model_config_to_json(const ModelConfig& config);

// What the RoPE kernel needs of a config (kernels/rope.h: the kernels know no model types).
RopeParameters rope_parameters(const ModelConfig& config);

}  // namespace sift
