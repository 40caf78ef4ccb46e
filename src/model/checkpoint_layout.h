#pragma once
// The tensors a Hugging Face checkpoint of an architecture holds: names and shapes, in the
// order model files list them. Linear weights are (out_features, in_features), row-major.
//
//   model.embed_tokens.weight                         (V, H)
//   model.layers.{i}.input_layernorm.weight           (H)
//   model.layers.{i}.self_attn.q_proj.weight          (n_heads * head_dim, H)     + .bias if qkv_bias
//   model.layers.{i}.self_attn.k_proj.weight          (n_kv_heads * head_dim, H)  + .bias if qkv_bias
//   model.layers.{i}.self_attn.v_proj.weight          (n_kv_heads * head_dim, H)  + .bias if qkv_bias
//   model.layers.{i}.self_attn.o_proj.weight          (H, n_heads * head_dim)     + .bias if o_bias
//   model.layers.{i}.self_attn.q_norm.weight          (head_dim)  Qwen3 only
//   model.layers.{i}.self_attn.k_norm.weight          (head_dim)  Qwen3 only
//   model.layers.{i}.post_attention_layernorm.weight  (H)
//   model.layers.{i}.mlp.gate_proj.weight             (I, H)
//   model.layers.{i}.mlp.up_proj.weight               (I, H)
//   model.layers.{i}.mlp.down_proj.weight             (H, I)
//   model.norm.weight                                 (H)
//   lm_head.weight                                    (V, H)  unless tie_word_embeddings
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"

namespace sift {

enum class TensorRole { Embedding, OutputHead, Norm, Projection, Bias };

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  TensorRole role;
};

std::vector<TensorSpec> checkpoint_layout(const ModelConfig& config);

// Names a checkpoint may hold that the model does not read: rotary inv_freq buffers
// ("*" prefix = suffix match, see Checkpoint::check_names), and lm_head.weight when tied.
std::vector<std::string> ignorable_tensor_names(const ModelConfig& config);

}  // namespace sift
