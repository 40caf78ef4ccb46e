// Qwen3ForCausalLM: the Llama decoder plus q_norm / k_norm, an RMSNorm over head_dim on
// every q and k head before RoPE:  q_h = rms_norm(q_h) * w_q_norm  (head_dim).
// Biases only with attention_bias (then on q, k, v and o, as Llama).
#include "model/architecture.h"

namespace sift {

extern const Architecture qwen3_architecture = {
    .hf_name = "Qwen3ForCausalLM",
    .short_name = "qwen3",
    .qk_norm = true,
    .qkv_bias = BiasRule::IfAttentionBias,
    .o_bias = BiasRule::IfAttentionBias,
    .rope_scaling_types = {},
    .defaults = {.rope_theta = 1000000.0, .rms_norm_eps = 1e-6, .max_position_embeddings = 40960},
};

}  // namespace sift
