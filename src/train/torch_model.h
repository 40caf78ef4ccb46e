#pragma once
// TorchModel: the engine's decoder-only transformer (Qwen3 / Qwen2 / Llama, model/config.h)
// rebuilt from libtorch ops so autograd can train it. Same math as src/model/transformer.cpp:
//
//   x = E[ids]                                                    (B, T, H)
//   per layer:
//     h = rms_norm(x) * w_in                                      (B, T, H)   float32, as HF
//     q = h @ Wq^T (+bq) -> (B, nh, T, hd);  k, v = h @ Wk^T, Wv^T -> (B, nkv, T, hd)
//     q, k = rms_norm over hd (Qwen3 q_norm / k_norm);  rope(q, k, positions)
//     a = softmax(q k^T / sqrt(hd) + mask) v                      (B, nh, T, hd), GQA groups
//     x += a @ Wo^T (+bo);  x += (silu(h2 @ Wg^T) * (h2 @ Wu^T)) @ Wd^T,  h2 = rms_norm(x) * w_post
//   logits = rms_norm(x) * w_final @ W_out^T,  W_out = E when tied, else lm_head
//
// Parameters keep their Hugging Face names and shapes (model/checkpoint_layout.h), so a
// checkpoint loads name by name and the trained model is written back the same way.
// The attention mask is an input (attention_mask.h builds the layouts), never baked in.
#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/dtype.h"
#include "model/checkpoint_layout.h"
#include "model/config.h"

namespace sift::train {

struct NamedParameter {
  std::string name;      // Hugging Face tensor name, e.g. "model.layers.0.mlp.up_proj.weight"
  torch::Tensor tensor;  // float32, requires_grad
  bool decays = false;   // weight decay applies: matrices yes, norms and biases no
};

// Rows of a batch to read out: token token_index[r] of sequence batch_index[r], r < n.
struct ReadoutRows {
  torch::Tensor batch_index;  // (n) int64
  torch::Tensor token_index;  // (n) int64
};

inline constexpr int64_t kRowsOnlyTokensPerRow = 8;

class TorchModel {
 public:
  // Fresh weights: projections and embeddings N(0, 0.02^2), norm weights 1, biases 0;
  // drawn from a torch generator seeded with `seed`, so the same seed gives the same bits.
  static TorchModel fresh(const ModelConfig& config, uint64_t seed);
  // config.json + model.safetensors (or shards) of a Hugging Face directory, read as F32.
  static TorchModel load_from_checkpoint(const std::filesystem::path& dir);

  const ModelConfig& config() const { return config_; }
  const std::vector<NamedParameter>& named_parameters() const { return parameters_; }
  std::vector<torch::Tensor> parameters() const;

  // Final-layer hidden states, before the final norm, at the readout rows only:
  //   ids, positions (B, T) int64;  mask (B, T, T): bool (true = may attend) or float
  //   (additive, 0 or -inf). Every query row must see at least one key.
  //   -> (n, H) float32 for the n readout rows, in their order.
  // The last layer computes attention and MLP only for those rows (their K/V inputs are
  // complete after the previous layer), which saves 1/n_layers of the work, while there is
  // at most one row per kRowsOnlyTokensPerRow tokens of the batch (B * T); else it runs whole.
  torch::Tensor hidden_at(const torch::Tensor& ids, const torch::Tensor& positions, const torch::Tensor& mask,
                          const ReadoutRows& rows) const;

  // logits (n, V') = rms_norm(hidden) * w_final @ W_out[vocab_rows]^T; all rows when
  // vocab_rows is undefined.
  torch::Tensor logits(const torch::Tensor& hidden, const torch::Tensor& vocab_rows = {}) const;

  // model.safetensors in Hugging Face layout (names and shapes of checkpoint_layout).
  void write_safetensors(const std::filesystem::path& path, DType dtype) const;

  // Copies every parameter value from `other` (same config): used on resume.
  void copy_from(const std::vector<torch::Tensor>& values);

 private:
  struct Layer {
    torch::Tensor input_norm, q_proj, q_bias, k_proj, k_bias, v_proj, v_bias, o_proj, o_bias;
    torch::Tensor q_norm, k_norm, post_norm, gate_proj, up_proj, down_proj;
  };

  explicit TorchModel(ModelConfig config);
  torch::Tensor& parameter(const TensorSpec& spec);
  void bind_layers();

  // One decoder layer. x (B, T, H). When rows is given (last layer), returns (n, H) for
  // those rows only; else (B, T, H).
  torch::Tensor layer_forward(const Layer& L, const torch::Tensor& x, const torch::Tensor& cos,
                              const torch::Tensor& sin, const torch::Tensor& additive_mask,
                              const ReadoutRows* rows) const;

  ModelConfig config_;
  std::vector<NamedParameter> parameters_;
  std::vector<Layer> layers_;
  torch::Tensor embed_, final_norm_, lm_head_;  // lm_head_ undefined when tied
  torch::Tensor inv_freq_;                      // (hd / 2) float32, as src/kernels/rope.cpp
};

// RMSNorm as Hugging Face (float32): y = x * rsqrt(mean(x^2, -1) + eps) * weight.
torch::Tensor rms_norm(const torch::Tensor& x, const torch::Tensor& weight, double eps);

// inv_freq (hd / 2) of RoPE, including llama3 rope_scaling: the engine's formula
// (src/kernels/rope.cpp), value for value.
torch::Tensor rope_inv_freq(const ModelConfig& config);

}  // namespace sift::train
