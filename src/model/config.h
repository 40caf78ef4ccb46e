#pragma once
// ModelConfig: the fields of a Hugging Face config.json that the forward pass needs,
// validated. Anything sift does not support is an Error naming the field.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

#include "model/architecture.h"

namespace sift {

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

  int64_t q_dim() const { return n_heads * head_dim; }
  int64_t kv_dim() const { return n_kv_heads * head_dim; }

  // The architecture's traits for this config.
  bool qk_norm() const { return architecture->qk_norm; }            // RMSNorm on q, k heads
  bool qkv_bias() const { return has_bias(architecture->qkv_bias); }  // q/k/v_proj biases
  bool o_bias() const { return has_bias(architecture->o_bias); }      // o_proj bias
  bool has_bias(BiasRule rule) const {
    return rule == BiasRule::Always || (rule == BiasRule::IfAttentionBias && attention_bias);
  }
};

ModelConfig parse_model_config(const nlohmann::json& config, const std::string& where);
ModelConfig load_model_config(const std::filesystem::path& config_json);
nlohmann::json model_config_to_json(const ModelConfig& config);

}  // namespace sift
