#pragma once
// Tiny model configs for the trainer's tests (random weights, milliseconds per step).
#include <string>

#include "model/config.h"

namespace sift::train::testing {

// `architecture`: a short name ("qwen3", "qwen2", "llama").
inline ModelConfig tiny_config(const std::string& architecture, int64_t vocab_size = 300) {
  ModelConfig c;
  c.architecture = &architecture_named(architecture);
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
  c.tie_word_embeddings = architecture != "llama";
  if (architecture == "llama") c.rope_scaling = {8.0, 1.0, 4.0, 64};  // exercise llama3 scaling
  c.bos_token_id = 1;
  c.eos_token_id = 2;
  return c;
}

}  // namespace sift::train::testing
