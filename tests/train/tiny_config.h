#pragma once
// Tiny model configs for the trainer's tests (random weights, milliseconds per step).
#include "model/config.h"

namespace sift::train::testing {

inline ModelConfig tiny_config(Architecture arch, int64_t vocab_size = 300) {
  ModelConfig c;
  c.architecture = arch;
  c.architecture_name = arch == Architecture::Qwen3 ? "Qwen3ForCausalLM"
                        : arch == Architecture::Qwen2 ? "Qwen2ForCausalLM"
                                                      : "LlamaForCausalLM";
  c.hidden_size = 32;
  c.n_layers = 2;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.head_dim = 8;
  c.intermediate_size = 64;
  c.vocab_size = vocab_size;
  c.max_position_embeddings = 4096;
  c.rope_theta = 10000.0;
  c.rms_norm_eps = 1e-6;
  c.tie_word_embeddings = arch != Architecture::Llama;
  c.qk_norm = arch == Architecture::Qwen3;
  c.qkv_bias = arch == Architecture::Qwen2;
  if (arch == Architecture::Llama) c.rope_scaling = {8.0, 1.0, 4.0, 64};  // exercise llama3 scaling
  c.bos_token_id = 1;
  c.eos_token_id = 2;
  return c;
}

}  // namespace sift::train::testing
