#pragma once
// ModelConfig: the fields of a Hugging Face config.json that the forward pass needs,
// validated. Anything sift does not support is an Error naming the field.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

namespace sift {

enum class Architecture { Qwen3, Qwen2, Llama };

struct RopeScaling {  // rope_scaling of type "llama3"; factor == 0 means none
  double factor = 0.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  int64_t original_max_position_embeddings = 8192;
};

struct ModelConfig {
  Architecture architecture = Architecture::Qwen3;
  std::string architecture_name;  // as written in config.json, e.g. "Qwen3ForCausalLM"
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
  bool qkv_bias = false;     // Qwen2 always; Llama when attention_bias is true
  bool o_bias = false;       // Llama when attention_bias is true
  bool qk_norm = false;      // Qwen3: RMSNorm over head_dim on q and k, before RoPE
  RopeScaling rope_scaling;
  int64_t bos_token_id = -1;
  int64_t eos_token_id = -1;

  int64_t q_dim() const { return n_heads * head_dim; }
  int64_t kv_dim() const { return n_kv_heads * head_dim; }
};

ModelConfig parse_model_config(const nlohmann::json& config, const std::string& where);
ModelConfig load_model_config(const std::filesystem::path& config_json);
nlohmann::json model_config_to_json(const ModelConfig& config);

}  // namespace sift
