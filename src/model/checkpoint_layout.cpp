#include "model/checkpoint_layout.h"

#include "core/error.h"

namespace sift {

std::vector<TensorSpec> checkpoint_layout(const ModelConfig& c) {
  const int64_t H = c.hidden_size, I = c.intermediate_size, V = c.vocab_size;
  const int64_t D = c.q_dim(), E = c.kv_dim(), hd = c.head_dim;
  using K = TensorKind;
  using R = TensorRole;
  std::vector<TensorSpec> specs;
  specs.push_back({"model.embed_tokens.weight", {V, H}, R::Embedding, K::Embedding});
  for (int64_t i = 0; i < c.n_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    auto add = [&](const char* name, std::vector<int64_t> shape, TensorRole role, TensorKind kind) {
      specs.push_back({p + name, std::move(shape), role, kind, i});
    };
    add("input_layernorm.weight", {H}, R::Norm, K::InputNorm);
    add("self_attn.q_proj.weight", {D, H}, R::Projection, K::QProj);
    if (c.qkv_bias()) add("self_attn.q_proj.bias", {D}, R::Bias, K::QBias);
    add("self_attn.k_proj.weight", {E, H}, R::Projection, K::KProj);
    if (c.qkv_bias()) add("self_attn.k_proj.bias", {E}, R::Bias, K::KBias);
    add("self_attn.v_proj.weight", {E, H}, R::Projection, K::VProj);
    if (c.qkv_bias()) add("self_attn.v_proj.bias", {E}, R::Bias, K::VBias);
    add("self_attn.o_proj.weight", {H, D}, R::Projection, K::OProj);
    if (c.o_bias()) add("self_attn.o_proj.bias", {H}, R::Bias, K::OBias);
    if (c.qk_norm()) {
      add("self_attn.q_norm.weight", {hd}, R::Norm, K::QNorm);
      add("self_attn.k_norm.weight", {hd}, R::Norm, K::KNorm);
    }
    add("post_attention_layernorm.weight", {H}, R::Norm, K::PostNorm);
    add("mlp.gate_proj.weight", {I, H}, R::Projection, K::GateProj);
    add("mlp.up_proj.weight", {I, H}, R::Projection, K::UpProj);
    add("mlp.down_proj.weight", {H, I}, R::Projection, K::DownProj);
  }
  specs.push_back({"model.norm.weight", {H}, R::Norm, K::FinalNorm});
  if (!c.tie_word_embeddings) specs.push_back({"lm_head.weight", {V, H}, R::OutputHead, K::OutputHead});
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
