#include "train/torch_model.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/ranges.h>

#include <cmath>

#include "core/error.h"
#include "io/labeler_files.h"
#include "io/checkpoint.h"
#include "kernels/rope.h"
#include "io/safetensors_writer.h"
#include "model/checkpoint_layout.h"
#include "model/checkpoint_match.h"

namespace sift::train {
namespace {

namespace F = torch::nn::functional;

// x (..., hd) rotated by the angles whose cos / sin are given as (..., hd / 2), broadcast:
//   out[i] = x1 cos - x2 sin,  out[i + hd/2] = x2 cos + x1 sin   (x1, x2 the two halves)
torch::Tensor apply_rope(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
  const int64_t half = x.size(-1) / 2;
  torch::Tensor x1 = x.narrow(-1, 0, half), x2 = x.narrow(-1, half, half);
  return torch::cat({x1 * cos - x2 * sin, x2 * cos + x1 * sin}, -1);
}

// Scaled dot-product attention with grouped-query heads:
//   q (N, nh, Tq, hd), k and v (N, nkv, Tk, hd), additive_mask (N, Tq, Tk)
//   scores (N, nkv, g*Tq, Tk) = q_group k^T / sqrt(hd) + mask;  g = nh / nkv
//   -> out (N, Tq, nh * hd)
torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                     const torch::Tensor& additive_mask) {
  const int64_t N = q.size(0), nh = q.size(1), Tq = q.size(2), hd = q.size(3);
  const int64_t nkv = k.size(1), Tk = k.size(2), g = nh / nkv;
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  torch::Tensor q_grouped = q.contiguous().view({N, nkv, g * Tq, hd});
  torch::Tensor scores = torch::matmul(q_grouped, k.transpose(-1, -2)).mul(scale);
  scores = scores.view({N, nkv, g, Tq, Tk}) + additive_mask.view({N, 1, 1, Tq, Tk});
  torch::Tensor probs = torch::softmax(scores, -1).view({N, nkv, g * Tq, Tk});
  torch::Tensor out = torch::matmul(probs, v).view({N, nh, Tq, hd});
  return out.transpose(1, 2).reshape({N, Tq, nh * hd});
}

torch::Tensor linear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  return F::linear(x, weight, bias.defined() ? bias : torch::Tensor());
}

// A bool mask (true = may attend) becomes additive (0 / -inf); a float one is used as is.
torch::Tensor additive(const torch::Tensor& mask) {
  if (mask.scalar_type() != torch::kBool) return mask.to(torch::kFloat32);
  return torch::zeros(mask.sizes(), torch::kFloat32).masked_fill(mask.logical_not(), -INFINITY);
}

}  // namespace

torch::Tensor rms_norm(const torch::Tensor& x, const torch::Tensor& weight, double eps) {
  torch::Tensor x32 = x.to(torch::kFloat32);
  torch::Tensor inv_rms = torch::rsqrt(x32.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return weight * (x32 * inv_rms);
}

// The engine's inverse frequencies (src/kernels/rope.cpp, with the Llama 3 scaling): one
// formula for both, so training and scoring rotate by the same angles.
torch::Tensor rope_inv_freq(const ModelConfig& config) {
  return torch::tensor(Rope(rope_parameters(config)).inv_freq(), torch::kFloat32);
}

TorchModel::TorchModel(ModelConfig config) : config_(std::move(config)), inv_freq_(rope_inv_freq(config_)) {
  for (const TensorSpec& spec : checkpoint_layout(config_)) {
    const bool decays = spec.role == TensorRole::Embedding || spec.role == TensorRole::OutputHead ||
                        spec.role == TensorRole::Projection;
    parameters_.push_back({spec.name, torch::empty(spec.shape, torch::kFloat32), decays});
  }
}

torch::Tensor& TorchModel::parameter(const TensorSpec& spec) {
  for (NamedParameter& p : parameters_)
    if (p.name == spec.name) return p.tensor;
  fail("TorchModel: no parameter {}", spec.name);
}

void TorchModel::bind_layers() {
  for (NamedParameter& p : parameters_) p.tensor.set_requires_grad(true);
  const std::vector<TensorSpec> layout = checkpoint_layout(config_);
  const TensorLookup tensors(layout);
  using K = TensorKind;
  auto required = [&](TensorKind kind, int64_t layer = -1) { return parameter(tensors.at(kind, layer)); };
  auto optional = [&](TensorKind kind, int64_t layer = -1) {
    const TensorSpec* spec = tensors.find(kind, layer);
    return spec ? parameter(*spec) : torch::Tensor();
  };
  embed_ = required(K::Embedding);
  final_norm_ = required(K::FinalNorm);
  lm_head_ = optional(K::OutputHead);
  layers_.clear();
  for (int64_t i = 0; i < config_.n_layers; ++i) {
    Layer L;
    L.input_norm = required(K::InputNorm, i);
    L.q_proj = required(K::QProj, i);
    L.k_proj = required(K::KProj, i);
    L.v_proj = required(K::VProj, i);
    L.o_proj = required(K::OProj, i);
    L.q_bias = optional(K::QBias, i);
    L.k_bias = optional(K::KBias, i);
    L.v_bias = optional(K::VBias, i);
    L.o_bias = optional(K::OBias, i);
    L.q_norm = optional(K::QNorm, i);
    L.k_norm = optional(K::KNorm, i);
    L.post_norm = required(K::PostNorm, i);
    L.gate_proj = required(K::GateProj, i);
    L.up_proj = required(K::UpProj, i);
    L.down_proj = required(K::DownProj, i);
    layers_.push_back(std::move(L));
  }
}

TorchModel TorchModel::fresh(const ModelConfig& config, uint64_t seed) {
  TorchModel model(config);
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  torch::NoGradGuard no_grad;
  for (const TensorSpec& spec : checkpoint_layout(config)) {
    torch::Tensor& t = model.parameter(spec);
    switch (spec.role) {
      case TensorRole::Norm: t.fill_(1.0f); break;
      case TensorRole::Bias: t.zero_(); break;
      default: t.normal_(0.0, 0.02, generator); break;
    }
  }
  model.bind_layers();
  return model;
}

TorchModel TorchModel::load_from_checkpoint(const std::filesystem::path& dir) {
  check_model_directory(dir);
  ModelConfig config = load_model_config(dir / "config.json");
  const Checkpoint checkpoint = Checkpoint::open(dir);
  check_checkpoint_matches(checkpoint, checkpoint_layout(config), config);  // before any parameter is allocated
  TorchModel model(std::move(config));
  for (NamedParameter& p : model.parameters_) {
    const std::vector<int64_t> shape = p.tensor.sizes().vec();
    checkpoint.read_f32_into(p.name, shape, {p.tensor.data_ptr<float>(), static_cast<size_t>(p.tensor.numel())});
  }
  model.bind_layers();
  return model;
}

std::vector<torch::Tensor> TorchModel::parameters() const {
  std::vector<torch::Tensor> tensors;
  for (const NamedParameter& p : parameters_) tensors.push_back(p.tensor);
  return tensors;
}

void TorchModel::copy_from(const std::vector<torch::Tensor>& values) {
  if (values.size() != parameters_.size())
    fail("TorchModel: {} tensors given for {} parameters", values.size(), parameters_.size());
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i].sizes().equals(parameters_[i].tensor.sizes()))
      fail("TorchModel: tensor {} has shape {}, expected {}", parameters_[i].name, values[i].sizes().vec(),
           parameters_[i].tensor.sizes().vec());
    parameters_[i].tensor.copy_(values[i]);
  }
}

torch::Tensor TorchModel::layer_forward(const Layer& L, const torch::Tensor& x, const torch::Tensor& cos,
                                        const torch::Tensor& sin, const torch::Tensor& additive_mask,
                                        const ReadoutRows* rows) const {
  const ModelConfig& c = config_;
  const int64_t B = x.size(0), T = x.size(1), nh = c.n_heads, nkv = c.n_kv_heads, hd = c.head_dim;
  const double eps = c.rms_norm_eps;

  // Keys and values of every token: (B, nkv, T, hd); cos, sin (B, T, hd/2) -> (B, 1, T, hd/2).
  torch::Tensor h = rms_norm(x, L.input_norm, eps);
  torch::Tensor k = linear(h, L.k_proj, L.k_bias).view({B, T, nkv, hd});
  if (c.qk_norm()) k = rms_norm(k, L.k_norm, eps);
  k = apply_rope(k.transpose(1, 2), cos.unsqueeze(1), sin.unsqueeze(1));
  torch::Tensor v = linear(h, L.v_proj, L.v_bias).view({B, T, nkv, hd}).transpose(1, 2);

  torch::Tensor residual, q, keys = k, values = v, mask = additive_mask;
  if (rows) {
    // Only the n readout rows as queries: each a batch entry of one query token against
    // its own sequence's keys.  q (n, nh, 1, hd), keys (n, nkv, T, hd), mask (n, 1, T).
    residual = x.index({rows->batch_index, rows->token_index});                      // (n, H)
    const torch::Tensor h_rows = h.index({rows->batch_index, rows->token_index});    // (n, H)
    const int64_t n = residual.size(0);
    q = linear(h_rows, L.q_proj, L.q_bias).view({n, nh, hd});
    if (c.qk_norm()) q = rms_norm(q, L.q_norm, eps);
    const torch::Tensor cos_rows = cos.index({rows->batch_index, rows->token_index}).unsqueeze(1);  // (n, 1, hd/2)
    const torch::Tensor sin_rows = sin.index({rows->batch_index, rows->token_index}).unsqueeze(1);
    q = apply_rope(q, cos_rows, sin_rows).unsqueeze(2);
    keys = k.index_select(0, rows->batch_index);
    values = v.index_select(0, rows->batch_index);
    mask = additive_mask.index({rows->batch_index, rows->token_index}).unsqueeze(1);
  } else {
    residual = x;
    q = linear(h, L.q_proj, L.q_bias).view({B, T, nh, hd});
    if (c.qk_norm()) q = rms_norm(q, L.q_norm, eps);
    q = apply_rope(q.transpose(1, 2), cos.unsqueeze(1), sin.unsqueeze(1));  // (B, nh, T, hd)
  }
  torch::Tensor attn = attend(q, keys, values, mask);  // (N, Tq, nh*hd)
  if (rows) attn = attn.squeeze(1);                   // (n, nh*hd)
  torch::Tensor out = residual + linear(attn, L.o_proj, L.o_bias);

  // SwiGLU MLP: down(silu(gate(h2)) * up(h2)).
  torch::Tensor h2 = rms_norm(out, L.post_norm, eps);
  torch::Tensor act = torch::silu(F::linear(h2, L.gate_proj)) * F::linear(h2, L.up_proj);
  return out + F::linear(act, L.down_proj);
}

torch::Tensor TorchModel::hidden_at(const torch::Tensor& ids, const torch::Tensor& positions,
                                    const torch::Tensor& mask, const ReadoutRows& rows) const {
  const int64_t B = ids.size(0), T = ids.size(1);
  if (positions.sizes() != ids.sizes()) fail("TorchModel: positions {} differ from ids {}", positions.sizes().vec(), ids.sizes().vec());
  if (mask.dim() != 3 || mask.size(0) != B || mask.size(1) != T || mask.size(2) != T)
    fail("TorchModel: mask has shape {}, expected [{}, {}, {}]", mask.sizes().vec(), B, T, T);
  if (ids.numel() > 0 && (ids.min().item<int64_t>() < 0 || ids.max().item<int64_t>() >= config_.vocab_size))
    fail("TorchModel: token id outside the vocabulary [0, {})", config_.vocab_size);

  // RoPE angles as the engine (src/kernels/rope.cpp): angle = double(position) *
  // double(inv_freq), cos and sin in double, rounded to float32.  (B, T, hd/2)
  const torch::Tensor angle = positions.to(torch::kFloat64).unsqueeze(-1) * inv_freq_.to(torch::kFloat64);
  const torch::Tensor cos = angle.cos().to(torch::kFloat32), sin = angle.sin().to(torch::kFloat32);
  torch::Tensor additive_mask = additive(mask);

  // The rows-only last layer copies each row's sequence keys and values, (n, nkv, T, hd) each:
  // it pays while rows are few per sequence (an answer position per candidate), not when
  // most tokens are read (every answer-list token of packed generation): then the last
  // layer runs whole and the rows are picked from it.
  const bool rows_only = rows.batch_index.size(0) * kRowsOnlyTokensPerRow <= B * T;
  torch::Tensor x = torch::embedding(embed_, ids);  // (B, T, H)
  for (size_t l = 0; l < layers_.size(); ++l) {
    const bool last = l + 1 == layers_.size();
    x = layer_forward(layers_[l], x, cos, sin, additive_mask, last && rows_only ? &rows : nullptr);
  }
  return rows_only ? x : x.index({rows.batch_index, rows.token_index});
}

torch::Tensor TorchModel::logits(const torch::Tensor& hidden, const torch::Tensor& vocab_rows) const {
  torch::Tensor head = lm_head_.defined() ? lm_head_ : embed_;
  if (vocab_rows.defined()) head = head.index_select(0, vocab_rows);
  return torch::matmul(rms_norm(hidden, final_norm_, config_.rms_norm_eps), head.t());
}

void TorchModel::write_safetensors(const std::filesystem::path& path, DType dtype) const {
  std::vector<torch::Tensor> values;
  std::vector<TensorSource> sources;
  for (const NamedParameter& p : parameters_) {
    values.push_back(p.tensor.detach().to(torch::kFloat32).contiguous());
    const torch::Tensor& t = values.back();
    sources.push_back(TensorSource::from_data(p.name, t.sizes().vec(),
                                              {t.data_ptr<float>(), static_cast<size_t>(t.numel())}));
  }
  sift::write_safetensors(path, sources, dtype);
}

}  // namespace sift::train
