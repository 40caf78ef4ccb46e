#include "model/weights.h"

#include <string>

#include "core/error.h"
#include "core/log.h"
#include "model/checkpoint_layout.h"

namespace sift {
namespace {

// Stacks tensors (each (rows_i, n_cols)) row-wise into one packed matrix, reading each
// row straight from the checkpoint mapping (no full F32 copy of the tensor).
PackedMatrix pack_rows(const Checkpoint& checkpoint, const std::vector<std::string>& names,
                       const std::vector<int64_t>& rows_per_tensor, int64_t n_cols) {
  int64_t total_rows = 0;
  for (size_t t = 0; t < names.size(); ++t) {
    const TensorInfo& info = checkpoint.info(names[t]);
    if (info.shape != std::vector<int64_t>{rows_per_tensor[t], n_cols})
      fail("{}: tensor {} has shape {}, expected [{}, {}]", checkpoint.dir().string(), names[t],
           shape_to_string(info.shape), rows_per_tensor[t], n_cols);
    total_rows += rows_per_tensor[t];
  }
  PackedMatrix packed(total_rows, n_cols, [&](int64_t row, float* dst) {
    size_t t = 0;
    while (row >= rows_per_tensor[t]) row -= rows_per_tensor[t++];
    const TensorInfo& info = checkpoint.info(names[t]);
    const size_t element = dtype_size(info.dtype);
    convert_to_f32(info.dtype, info.bytes.data() + row * n_cols * element, dst, static_cast<size_t>(n_cols));
  });
  for (const std::string& name : names) checkpoint.release(name);  // keep only the packed copy resident
  return packed;
}

std::vector<float> read_vector(const Checkpoint& checkpoint, const std::string& name, int64_t n) {
  return checkpoint.read_f32(name, {n});
}

}  // namespace

ModelWeights load_weights(const Checkpoint& ckpt, const ModelConfig& c) {
  std::vector<std::string> expected;
  for (const TensorSpec& spec : checkpoint_layout(c)) expected.push_back(spec.name);
  ckpt.check_names(expected, ignorable_tensor_names(c));
  auto layer_name = [](int64_t i, const char* rest) { return "model.layers." + std::to_string(i) + "." + rest; };

  const int64_t H = c.hidden_size, I = c.intermediate_size;
  ModelWeights w;
  w.embed = pack_rows(ckpt, {"model.embed_tokens.weight"}, {c.vocab_size}, H);
  if (!c.tie_word_embeddings) w.lm_head = pack_rows(ckpt, {"lm_head.weight"}, {c.vocab_size}, H);
  w.final_norm = read_vector(ckpt, "model.norm.weight", H);
  w.layers.resize(static_cast<size_t>(c.n_layers));
  for (int64_t i = 0; i < c.n_layers; ++i) {
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    auto name = [&](const char* rest) { return layer_name(i, rest); };
    L.input_norm = read_vector(ckpt, name("input_layernorm.weight"), H);
    L.post_norm = read_vector(ckpt, name("post_attention_layernorm.weight"), H);
    L.qkv = pack_rows(ckpt, {name("self_attn.q_proj.weight"), name("self_attn.k_proj.weight"), name("self_attn.v_proj.weight")},
                      {c.q_dim(), c.kv_dim(), c.kv_dim()}, H);
    if (c.qkv_bias) {
      for (auto [rest, n] : {std::pair{"self_attn.q_proj.bias", c.q_dim()}, std::pair{"self_attn.k_proj.bias", c.kv_dim()},
                             std::pair{"self_attn.v_proj.bias", c.kv_dim()}}) {
        std::vector<float> bias = read_vector(ckpt, name(rest), n);
        L.qkv_bias.insert(L.qkv_bias.end(), bias.begin(), bias.end());
      }
    }
    if (c.qk_norm) {
      L.q_norm = read_vector(ckpt, name("self_attn.q_norm.weight"), c.head_dim);
      L.k_norm = read_vector(ckpt, name("self_attn.k_norm.weight"), c.head_dim);
    }
    L.o = pack_rows(ckpt, {name("self_attn.o_proj.weight")}, {H}, c.q_dim());
    if (c.o_bias) L.o_bias = read_vector(ckpt, name("self_attn.o_proj.bias"), H);
    L.gate_up = pack_rows(ckpt, {name("mlp.gate_proj.weight"), name("mlp.up_proj.weight")}, {I, I}, H);
    L.down = pack_rows(ckpt, {name("mlp.down_proj.weight")}, {H}, I);
    spdlog::debug("loaded layer {}/{}", i + 1, c.n_layers);
  }
  return w;
}

}  // namespace sift
