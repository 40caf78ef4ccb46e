#pragma once
// The blocks of the decoder forward pass, shared by every architecture (docs/engine.md).
// What differs between architectures is which optional weights a layer holds (q/k norms,
// biases), decided by the architecture table when the weights are loaded.
//
// For T new tokens (H hidden, D = q_dim, E = kv_dim, I = intermediate), C cached keys:
//   embed     : x (T, H) = embedding rows of ids
//   attention : h = rms_norm(x) * w_in                            (T, H)
//               qkv = h @ Wqkv^T (+ b)                            (T, D + 2E)
//               q, k = rms_norm per head (layers with q/k norms, Qwen3); rope(q, k, positions)
//               K, V of the new tokens -> this layer's key rows C..C+T-1
//               a = attention(q of the R rows kept, their visible keys)   (R, D)
//               x_R += a @ Wo^T (+ b)                             (R, H)
//   mlp       : x_R += (silu(rms_norm(x_R) @ Wg^T) * (rms_norm(x_R) @ Wu^T)) @ Wd^T
//   readout   : logits = (rms_norm(x_R) * w_final) @ head rows^T  (R, vocab rows)
// R = T in every layer but the last, where only the logit rows are still needed (their K/V
// were written above; no later token reads the other rows' outputs).
#include <cstdint>
#include <span>

#include "kernels/attention.h"
#include "kernels/rope.h"
#include "model/config.h"
#include "model/weights.h"

namespace sift {

// Workspace of one call, sized by the session: x (T, H), x_rows (R, H), h (max(T,R), H),
// qkv (T, D + 2E), q_rows (R, D + 2E), attn (max(T,R), D), gate_up (max(T,R), 2I),
// act (max(T,R), I), proj (max(T,R), H).
struct LayerBuffers {
  float *x, *x_rows, *h, *qkv, *q_rows, *attn, *gate_up, *act, *proj;
};

// One layer's key space: (C + T, E) keys and values; rows C.. receive the new tokens.
struct LayerKv {
  float* keys;
  float* values;
  int64_t n_cached;
};

// The residual stream after the attention block: x (n_rows, H).
struct Residual {
  float* x;
  int64_t n_rows;
};

// The rows the attention block keeps: all T tokens, or the `rows` gathered in that order.
struct RowSelection {
  bool gather = false;
  std::span<const int32_t> rows;  // when gather
  const VisibleKeys* visible;     // keys each kept row sees (T entries, or one per gathered row)
};

void embed_block(const PackedMatrix& embed, std::span<const int32_t> ids, float* x, int64_t hidden);

Residual attention_block(const ModelConfig& config, const LayerWeights& layer, const Rope& rope,
                         std::span<const int32_t> positions, const RowSelection& selection, const LayerKv& kv,
                         const LayerBuffers& buffers);

void mlp_block(const ModelConfig& config, const LayerWeights& layer, Residual residual, const LayerBuffers& buffers);

// logits (R, n_cols): all vocabulary rows (vocab_rows empty) or the listed ones.
void readout_block(const ModelConfig& config, const ModelWeights& weights, Residual residual,
                   std::span<const int32_t> vocab_rows, float* h, float* logits);

}  // namespace sift
