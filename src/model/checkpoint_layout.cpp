#include "model/checkpoint_layout.h"

namespace sift {

std::vector<TensorSpec> checkpoint_layout(const ModelConfig& c) {
  const int64_t H = c.hidden_size, I = c.intermediate_size, V = c.vocab_size;
  std::vector<TensorSpec> specs;
  specs.push_back({"model.embed_tokens.weight", {V, H}, TensorRole::Embedding});
  for (int64_t i = 0; i < c.n_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    specs.push_back({p + "input_layernorm.weight", {H}, TensorRole::Norm});
    specs.push_back({p + "self_attn.q_proj.weight", {c.q_dim(), H}, TensorRole::Projection});
    if (c.qkv_bias) specs.push_back({p + "self_attn.q_proj.bias", {c.q_dim()}, TensorRole::Bias});
    specs.push_back({p + "self_attn.k_proj.weight", {c.kv_dim(), H}, TensorRole::Projection});
    if (c.qkv_bias) specs.push_back({p + "self_attn.k_proj.bias", {c.kv_dim()}, TensorRole::Bias});
    specs.push_back({p + "self_attn.v_proj.weight", {c.kv_dim(), H}, TensorRole::Projection});
    if (c.qkv_bias) specs.push_back({p + "self_attn.v_proj.bias", {c.kv_dim()}, TensorRole::Bias});
    specs.push_back({p + "self_attn.o_proj.weight", {H, c.q_dim()}, TensorRole::Projection});
    if (c.o_bias) specs.push_back({p + "self_attn.o_proj.bias", {H}, TensorRole::Bias});
    if (c.qk_norm) {
      specs.push_back({p + "self_attn.q_norm.weight", {c.head_dim}, TensorRole::Norm});
      specs.push_back({p + "self_attn.k_norm.weight", {c.head_dim}, TensorRole::Norm});
    }
    specs.push_back({p + "post_attention_layernorm.weight", {H}, TensorRole::Norm});
    specs.push_back({p + "mlp.gate_proj.weight", {I, H}, TensorRole::Projection});
    specs.push_back({p + "mlp.up_proj.weight", {I, H}, TensorRole::Projection});
    specs.push_back({p + "mlp.down_proj.weight", {H, I}, TensorRole::Projection});
  }
  specs.push_back({"model.norm.weight", {H}, TensorRole::Norm});
  if (!c.tie_word_embeddings) specs.push_back({"lm_head.weight", {V, H}, TensorRole::OutputHead});
  return specs;
}

std::vector<std::string> ignorable_tensor_names(const ModelConfig& c) {
  std::vector<std::string> names = {"*.rotary_emb.inv_freq"};
  if (c.tie_word_embeddings) names.push_back("lm_head.weight");
  return names;
}

}  // namespace sift
