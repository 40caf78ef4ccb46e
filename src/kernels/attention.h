#pragma once
// Scaled dot-product attention over an explicit set of visible keys per query row, with
// grouped-query heads (n_heads query heads share n_kv_heads key/value heads).
//
// Row r sees keys [context_begin, context_end) and [own_begin, own_end): the shared context
// (its query, for an item token) and its own segment up to itself. That covers causal prompts, the
// multi-item layout and cached prefixes without ever building a T x T mask, and costs
// sum over rows of (visible keys): Lq^2/2 + N*Li*(Lq+Li) for multi-item scoring.
//
//   scores_j = (q_h . k_j) / sqrt(head_dim);  p = softmax(scores);  out_h = sum_j p_j v_j
// The keys are visited in index order and each row's arithmetic is independent of the
// other rows, so a row's output depends only on what it sees (the exact operation order is
// written down in attention.cpp). The fast kernel takes neighbouring rows that see the same
// keys first (a causal prompt's rows, one item's rows) in blocks and runs both products
// through the F32 gemm's register tile (kernels/micro_tile.h): scores as 6 or 12 query
// vectors (rows x the query heads of one kv head) against 16 or 32 keys, values as the same
// vectors' probabilities against 16 or 32 value columns, over the keys every row of the block
// sees; each row's remaining own keys then continue its sums alone. Keys and values are copied
// into the tile's panel layout once per call. With `bf16`, the same walk runs both products
// through the BF16 gemm's tile (kernels/bf16_tile.h) where the CPU has AVX512_BF16, else the
// plain twin computes the same chains.
#include <cstdint>

namespace sift {

struct VisibleKeys {
  int32_t context_begin = 0;  // keys [context_begin, context_end)
  int32_t context_end = 0;
  int32_t own_begin = 0;    // and keys [own_begin, own_end)
  int32_t own_end = 0;
};

struct AttentionDims {
  int64_t n_heads = 0, n_kv_heads = 0, head_dim = 0;
  // The two products in BF16 (BF16 compute, kernels/attention_bf16.h states the chains): q, k,
  // p and v rounded to BF16, the sums in F32 by vdpbf16ps's chain, the softmax in F32 as
  // above; out_h = (BF16 chain over p_j v_j) * (1 / total), total the sum of the unrounded p.
  bool bf16 = false;
  int64_t q_dim() const { return n_heads * head_dim; }
  int64_t kv_dim() const { return n_kv_heads * head_dim; }
};

// q: (n_rows, q_stride) with heads side by side; keys, values: (n_keys, kv_dim);
// out: (n_rows, q_dim).
void attention(const AttentionDims& dims, const float* q, int64_t q_stride, const VisibleKeys* visible,
               int64_t n_rows, const float* keys, const float* values, float* out);

// The same arithmetic without SIMD (bitwise equal to attention; used where AVX2 is missing).
void attention_plain(const AttentionDims& dims, const float* q, int64_t q_stride, const VisibleKeys* visible,
                     int64_t n_rows, const float* keys, const float* values, float* out);

// Plain reference in double precision, for tests.
void attention_reference(const AttentionDims& dims, const float* q, int64_t q_stride,
                         const VisibleKeys* visible, int64_t n_rows, const float* keys, const float* values,
                         float* out);

}  // namespace sift
