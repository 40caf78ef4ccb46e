#include "model/checkpoint_layout.h"

#include "core/error.h"

namespace sift {

std::vector<TensorSpec> checkpoint_layout(const ModelConfig& c) {
  validate_model_config(c, "model config");
  const int64_t H = c.hidden_size, I = c.intermediate_size, V = c.vocab_size;
  const int64_t D = c.q_dim(), E = c.kv_dim(), hd = c.head_dim;
  using K = TensorKind;
  using R = TensorRole;
  // Field names of the shapes, as config.json spells them.
  const char* const kVH = "[vocab_size, hidden_size]";
  const char* const kH = "[hidden_size]";
  const char* const kDH = "[num_attention_heads x head_dim, hidden_size]";
  const char* const kD = "[num_attention_heads x head_dim]";
  const char* const kEH = "[num_key_value_heads x head_dim, hidden_size]";
  const char* const kE = "[num_key_value_heads x head_dim]";
  const char* const kHD = "[hidden_size, num_attention_heads x head_dim]";
  const char* const kHd = "[head_dim]";
  const char* const kIH = "[intermediate_size, hidden_size]";
  const char* const kHI = "[hidden_size, intermediate_size]";
  std::vector<TensorSpec> specs;
  specs.push_back({"model.embed_tokens.weight", {V, H}, R::Embedding, K::Embedding, -1, kVH});
  for (int64_t i = 0; i < c.n_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    auto add = [&](const char* name, std::vector<int64_t> shape, TensorRole role, TensorKind kind, const char* fields) {
      specs.push_back({p + name, std::move(shape), role, kind, i, fields});
    };
    add("input_layernorm.weight", {H}, R::Norm, K::InputNorm, kH);
    add("self_attn.q_proj.weight", {D, H}, R::Projection, K::QProj, kDH);
    if (c.qkv_bias()) add("self_attn.q_proj.bias", {D}, R::Bias, K::QBias, kD);
    add("self_attn.k_proj.weight", {E, H}, R::Projection, K::KProj, kEH);
    if (c.qkv_bias()) add("self_attn.k_proj.bias", {E}, R::Bias, K::KBias, kE);
    add("self_attn.v_proj.weight", {E, H}, R::Projection, K::VProj, kEH);
    if (c.qkv_bias()) add("self_attn.v_proj.bias", {E}, R::Bias, K::VBias, kE);
    add("self_attn.o_proj.weight", {H, D}, R::Projection, K::OProj, kHD);
    if (c.o_bias()) add("self_attn.o_proj.bias", {H}, R::Bias, K::OBias, kH);
    if (c.qk_norm()) {
      add("self_attn.q_norm.weight", {hd}, R::Norm, K::QNorm, kHd);
      add("self_attn.k_norm.weight", {hd}, R::Norm, K::KNorm, kHd);
    }
    add("post_attention_layernorm.weight", {H}, R::Norm, K::PostNorm, kH);
    add("mlp.gate_proj.weight", {I, H}, R::Projection, K::GateProj, kIH);
    add("mlp.up_proj.weight", {I, H}, R::Projection, K::UpProj, kIH);
    add("mlp.down_proj.weight", {H, I}, R::Projection, K::DownProj, kHI);
  }
  specs.push_back({"model.norm.weight", {H}, R::Norm, K::FinalNorm, -1, kH});
  if (!c.tie_word_embeddings) specs.push_back({"lm_head.weight", {V, H}, R::OutputHead, K::OutputHead, -1, kVH});
  return specs;
}

std::vector<std::string> ignorable_tensor_names(const ModelConfig& c) {
  std::vector<std::string> names = {"*.rotary_emb.inv_freq"};
  if (c.tie_word_embeddings) names.push_back("lm_head.weight");
  return names;
}

TensorLookup::TensorLookup(const std::vector<TensorSpec>& layout) {
  for (const TensorSpec& spec : layout) by_layer_and_kind_.emplace(std::pair{spec.layer, spec.kind}, &spec);
}

const TensorSpec* TensorLookup::find(TensorKind kind, int64_t layer) const {
  auto it = by_layer_and_kind_.find({layer, kind});
  return it == by_layer_and_kind_.end() ? nullptr : it->second;
}

const TensorSpec& TensorLookup::at(TensorKind kind, int64_t layer) const {
  const TensorSpec* spec = find(kind, layer);
  if (!spec) fail("the checkpoint layout has no tensor of kind {} in layer {}", static_cast<int>(kind), layer);
  return *spec;
}

}  // namespace sift
