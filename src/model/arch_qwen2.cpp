// Qwen2ForCausalLM: the Llama decoder with a bias on the q, k and v projections (always; none
// on o_proj):  q = h @ Wq^T + bq,  k = h @ Wk^T + bk,  v = h @ Wv^T + bv.
#include "model/architecture.h"

namespace sift {

extern const Architecture qwen2_architecture = {
    .hf_name = "Qwen2ForCausalLM",
    .short_name = "qwen2",
    .qk_norm = false,
    .qkv_bias = BiasRule::Always,
    .o_bias = BiasRule::Never,
    .rope_scaling_types = {},
    .defaults = {.rope_theta = 1000000.0, .rms_norm_eps = 1e-6, .max_position_embeddings = 40960},
};

}  // namespace sift
