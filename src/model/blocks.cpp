// The shared blocks of the forward pass; the math and shapes are stated in model/blocks.h.
#include "model/blocks.h"

#include <algorithm>
#include <cstring>

#include "core/parallel.h"
#include "kernels/attention_bf16.h"
#include "kernels/elementwise.h"
#include "kernels/gemm.h"

namespace sift {
namespace {

void add_in_place(float* x, const float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] += y[i];
}

void gather_rows(const float* src, int64_t width, std::span<const int32_t> rows, float* dst) {
  for (size_t i = 0; i < rows.size(); ++i) std::copy_n(src + rows[i] * width, width, dst + static_cast<int64_t>(i) * width);
}

}  // namespace

void embed_block(const PackedMatrix& embed, std::span<const int32_t> ids, float* x, int64_t hidden) {
  parallel_for(static_cast<int64_t>(ids.size()), [&](int64_t t) { embed.copy_row(ids[t], x + t * hidden); }, hidden);
}

Residual attention_block(const ModelConfig& c, const LayerWeights& L, const Rope& rope, std::span<const int32_t> positions,
                         const RowSelection& selection, const LayerKv& kv, const LayerBuffers& b) {
  const int64_t T = static_cast<int64_t>(positions.size());
  const int64_t H = c.hidden_size, D = c.q_dim(), E = c.kv_dim(), QKV = D + 2 * E;
  const float eps = static_cast<float>(c.rms_norm_eps);

  // q, k, v for every new token: their K/V are seen by later tokens.
  rms_norm(b.x, T, H, H, L.input_norm.data(), eps, b.h, H);
  gemm(b.h, T, H, L.qkv, b.qkv, QKV);
  if (!L.qkv_bias.empty()) add_bias(b.qkv, T, QKV, QKV, L.qkv_bias.data());
  if (!L.q_norm.empty()) {
    rms_norm_heads(b.qkv, T, QKV, c.n_heads, c.head_dim, L.q_norm.data(), eps);
    rms_norm_heads(b.qkv + D, T, QKV, c.n_kv_heads, c.head_dim, L.k_norm.data(), eps);
  }
  rope.apply(b.qkv, T, QKV, c.n_heads, positions.data());
  rope.apply(b.qkv + D, T, QKV, c.n_kv_heads, positions.data());
  for (int64_t t = 0; t < T; ++t) {
    std::memcpy(kv.keys + (kv.n_cached + t) * E, b.qkv + t * QKV + D, E * sizeof(float));
    std::memcpy(kv.values + (kv.n_cached + t) * E, b.qkv + t * QKV + D + E, E * sizeof(float));
  }

  // From here on only the rows kept: all of them, or (last layer) the logit rows.
  Residual residual{b.x, T};
  const float* q = b.qkv;
  if (selection.gather) {
    residual = {b.x_rows, static_cast<int64_t>(selection.rows.size())};
    gather_rows(b.qkv, QKV, selection.rows, b.q_rows);
    gather_rows(b.x, H, selection.rows, b.x_rows);
    q = b.q_rows;
  }
  // BF16 compute (the projections' weights held as BF16 pairs) takes attention's products in
  // BF16 too where they pay (kernels/attention_bf16.h); every other storage keeps them F32.
  const AttentionDims dims{c.n_heads, c.n_kv_heads, c.head_dim,
                           L.qkv.type() == PackedType::BF16Dot && attention_in_bf16()};
  attention(dims, q, QKV, selection.visible, residual.n_rows, kv.keys, kv.values, b.attn);
  gemm(b.attn, residual.n_rows, D, L.o, b.proj, H);
  if (!L.o_bias.empty()) add_bias(b.proj, residual.n_rows, H, H, L.o_bias.data());
  add_in_place(residual.x, b.proj, residual.n_rows * H);
  return residual;
}

void mlp_block(const ModelConfig& c, const LayerWeights& L, Residual r, const LayerBuffers& b) {
  const int64_t H = c.hidden_size, I = c.intermediate_size;
  rms_norm(r.x, r.n_rows, H, H, L.post_norm.data(), static_cast<float>(c.rms_norm_eps), b.h, H);
  gemm(b.h, r.n_rows, H, L.gate_up, b.gate_up, 2 * I);
  silu_mul(b.gate_up, r.n_rows, I, b.act);
  gemm(b.act, r.n_rows, I, L.down, b.proj, H);
  add_in_place(r.x, b.proj, r.n_rows * H);
}

void readout_block(const ModelConfig& c, const ModelWeights& w, Residual r, std::span<const int32_t> vocab_rows,
                   float* h, float* logits) {
  const int64_t H = c.hidden_size;
  rms_norm(r.x, r.n_rows, H, H, w.final_norm.data(), static_cast<float>(c.rms_norm_eps), h, H);
  const PackedMatrix& head = w.output_head();
  if (vocab_rows.empty()) {
    gemm(h, r.n_rows, H, head, logits, c.vocab_size);
    return;
  }
  const int64_t n_cols = static_cast<int64_t>(vocab_rows.size());
  parallel_for(r.n_rows, [&](int64_t row) {
    gemv_rows(h + row * H, head, vocab_rows.data(), n_cols, logits + row * n_cols);
  }, H * n_cols);
}

}  // namespace sift
