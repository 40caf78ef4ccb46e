#pragma once
// Architecture: what one model family (a Hugging Face "architectures" name) changes in the
// shared decoder-only transformer. All three families sift runs are the Llama decoder
//
//   x = E[ids];  per layer: x += attn(rms_norm(x)), x += swiglu_mlp(rms_norm(x));
//   logits = rms_norm(x) @ W_out^T
//
// and differ only in these traits. Each family is one entry, defined in its own file
// src/model/arch_<name>.cpp as
//
//   extern const Architecture <name>_architecture = {...};
//
// CMake lists those files into architecture_list.h (one SIFT_ARCHITECTURE(<name>) line
// each), so adding a family means adding one arch_<name>.cpp file (and its golden case in
// tests/golden/make_golden.py). Tensor names and shapes are not here: checkpoint_layout.h
// lists them for a config, reading these traits.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sift {

// When a projection carries a bias vector.
enum class BiasRule {
  Never,
  Always,
  IfAttentionBias,  // when config.json has "attention_bias": true (default false)
};

// What `sift make-checkpoint` presets use for the fields a preset does not fix.
struct ArchitectureDefaults {
  double rope_theta;
  double rms_norm_eps;
  int64_t max_position_embeddings;
};

struct Architecture {
  std::string_view hf_name;     // config.json "architectures": ["Qwen3ForCausalLM"]
  std::string_view short_name;  // the file's <name>: `sift make-checkpoint --arch qwen3`
  bool qk_norm;                 // RMSNorm over head_dim on each q and k head, before RoPE
  BiasRule qkv_bias;            // q_proj, k_proj, v_proj biases
  BiasRule o_bias;              // o_proj bias
  // rope_scaling types accepted besides none / "default" (e.g. "llama3"); see RopeScaling.
  std::span<const std::string_view> rope_scaling_types;
  ArchitectureDefaults defaults;

  bool allows_rope_scaling(std::string_view type) const;
  bool reads_attention_bias() const {  // config.json's attention_bias matters
    return qkv_bias == BiasRule::IfAttentionBias || o_bias == BiasRule::IfAttentionBias;
  }
};

// Every architecture, ordered by short_name.
std::span<const Architecture* const> all_architectures();

// The architecture whose hf_name is `hf_name` ("Qwen3ForCausalLM"), or nullptr.
const Architecture* find_architecture(std::string_view hf_name);

// By short name ("qwen3"); an Error listing the known names when there is none.
const Architecture& architecture_named(std::string_view short_name);

// "Qwen2ForCausalLM, ..." or "qwen2, ..." for messages and option lists.
std::string hf_architecture_names();
std::vector<std::string> architecture_short_names();

}  // namespace sift
