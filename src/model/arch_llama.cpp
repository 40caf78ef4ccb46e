// LlamaForCausalLM: the plain decoder. attention_bias adds biases on q, k, v and o;
// rope_scaling of type "llama3" rescales RoPE's long wavelengths (kernels/rope.h).
#include "model/architecture.h"

namespace sift {
namespace {

constexpr std::string_view kLlamaRopeScaling[] = {"llama3"};

}  // namespace

extern const Architecture llama_architecture = {
    .hf_name = "LlamaForCausalLM",
    .short_name = "llama",
    .qk_norm = false,
    .qkv_bias = BiasRule::IfAttentionBias,
    .o_bias = BiasRule::IfAttentionBias,
    .rope_scaling_types = kLlamaRopeScaling,
    .defaults = {.rope_theta = 500000.0, .rms_norm_eps = 1e-5, .max_position_embeddings = 131072},
};

}  // namespace sift
