#pragma once
// The weights of one model in the layout the kernels want: projections repacked for gemm
// (q|k|v fused into one matrix, gate|up into another), vectors as plain F32. Each matrix is
// held as the WeightStorage asks (sift/weight_storage.h): its checkpoint type (auto), F32, BF16 or
// Q8 blocks (kernels/packed_matrix.h).
#include <vector>

#include "io/checkpoint.h"
#include "kernels/gemm.h"
#include "model/config.h"
#include "sift/weight_storage.h"

namespace sift {

struct LayerWeights {
  std::vector<float> input_norm;      // (H)
  PackedMatrix qkv;                   // (q_dim + 2 kv_dim, H): rows of q_proj, k_proj, v_proj
  std::vector<float> qkv_bias;        // (q_dim + 2 kv_dim) or empty
  std::vector<float> q_norm, k_norm;  // (head_dim) each, Qwen3 only
  PackedMatrix o;                     // (H, q_dim)
  std::vector<float> o_bias;          // (H) or empty
  std::vector<float> post_norm;       // (H)
  PackedMatrix gate_up;               // (2 I, H): rows of gate_proj, then up_proj
  PackedMatrix down;                  // (H, I)
};

struct ModelWeights {
  PackedMatrix embed;                 // (V, H); also the output head when tied
  PackedMatrix lm_head;               // (V, H) when not tied, else empty
  std::vector<float> final_norm;      // (H)
  std::vector<LayerWeights> layers;

  const PackedMatrix& output_head() const { return lm_head.rows() > 0 ? lm_head : embed; }
  size_t bytes() const;  // resident size of every matrix and vector
};

// Reads and checks every tensor the architecture needs (checkpoint_layout): a missing, extra
// or misshapen tensor is an Error naming it, raised before anything is allocated
// (check_checkpoint_matches); a NaN or Inf weight is an Error naming the tensor and element.
ModelWeights load_weights(const Checkpoint& checkpoint, const ModelConfig& config,
                          WeightStorage storage = WeightStorage::Auto);

}  // namespace sift
