#pragma once
// Attention's two products in BF16 (AttentionDims::bf16, kernels/attention.h): the operands
// rounded to BF16 (bf16_round), the sums in F32 by vdpbf16ps's chain (kernels/bf16_tile.h).
// attention.cpp walks the rows and runs the softmax; this file lays the operands out and runs
// the chains:
//
//   score_j = chain over pairs i of (q[2i], q[2i+1]) . (k_j[2i], k_j[2i+1]), head_dim padded
//             with zeros to k2 = a multiple of 16
//   out[c]  = chain over pairs m of list positions (2m, 2m+1) of
//             (p[2m], p[2m+1]) . (v_key(2m)[c], v_key(2m+1)[c])
//
// where a row's list is its visible keys in order (context, then own: attention.h) and
// key(n) the key at list position n. Pairs are of list positions, not of key indices, so a
// pair may join the context's last key and the row's first own key, and a list of odd length
// ends with the half pair (p[n-1], 0) . (v[n-1], 0). A row's chains are therefore a function
// of its list alone: the same in a causal prompt (one range) and in the multi-item layout
// (two ranges), whatever rows share its block.
#include <cstdint>

#include "kernels/attention.h"

namespace sift {

// Whether BF16 compute takes attention's products in BF16 too: where this process multiplies
// with vdpbf16ps (bf16_kernel() is Avx512Bf16: Zen 4/5 run it at twice the F32 FMA's
// arithmetic). With AMX attention stays F32: the Xeons measured run vdpbf16ps at half their
// F32 FMA rate, and AMX's tiles are the projections' alone.
bool attention_in_bf16();

// The keys and values of one call in BF16, laid out once per call for every block of rows:
// kv head g's keys 16p .. 16p + 15 as a key panel (k2 / 2 pairs of head_dim, 16 keys, 2);
// its value columns 16c .. 16c + 15 as two value panels, one per parity a, pair m holding
// keys 2m + a and 2m + a + 1 (n_value_pairs pairs, 16 columns, 2). Zeros past the call's
// keys and past head_dim.
struct Bf16KvPanels {
  const uint16_t* keys = nullptr;
  const uint16_t* values[2] = {nullptr, nullptr};
  const float* values_f32 = nullptr;  // the call's values, (n_keys, kv_dim)
  int64_t hd = 0, k2 = 0, kv_dim = 0, n_keys = 0, n_key_panels = 0, n_column_panels = 0, n_value_pairs = 0;
  const uint16_t* key_panel(int64_t g, int64_t p) const { return keys + (g * n_key_panels + p) * k2 * 16; }
  const uint16_t* value_panel(int64_t parity, int64_t g, int64_t c) const {
    return values[parity] + (g * n_column_panels + c) * n_value_pairs * 32;
  }
};
Bf16KvPanels bf16_kv_panels(const AttentionDims& dims, int64_t n_keys, const float* keys, const float* values);

// s[t * ld + c] = score chain of query vector t (queries: n_vec x hd floats) against key
// 16 * (begin / 16) + c, for the key panels covering [begin, end).
void bf16_score_panels(const float* queries, int64_t n_vec, const Bf16KvPanels& kv, int64_t kv_head, int32_t begin,
                       int32_t end, float* s, int64_t ld);

// The value chains of a block's n_vec vectors over their common list positions [0, n_even)
// (n_even even; every vector's list starts with the same context and own keys, `first`'s):
// chains[t * ld + c] from 0. probs: vector t's list at probs + t * n_last.
void bf16_shared_value_chains(const Bf16KvPanels& kv, int64_t kv_head, const VisibleKeys& first, int32_t n_even,
                              const float* probs, int64_t n_vec, int64_t n_last, float* chains, int64_t ld);

// One vector's chains continued over its list positions [from, n) (from even), p its list.
void bf16_continue_value_chains(const Bf16KvPanels& kv, int64_t kv_head, const VisibleKeys& v, int32_t from,
                                const float* p, float* chains);

// The plain twins, one element at a time: a score chain (q and k of head_dim values), and one
// row's value chains for the columns [0, hd) (values at key j: values + j * key_stride).
float bf16_score_plain(const float* q, const float* k, int64_t hd);
void bf16_value_chains_plain(const VisibleKeys& v, const float* p, const float* values, int64_t key_stride, int64_t hd,
                             float* chains);

}  // namespace sift
