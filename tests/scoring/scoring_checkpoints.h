#pragma once
// Small random checkpoints of every architecture for scoring tests, written into a
// per-process temporary folder (ctest may run several test processes at once).
#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "io/dtype.h"
#include "model/random_checkpoint.h"

namespace sift::testing {

// The architectures by short name ("qwen3", "qwen2", "llama"), numbered in that order (tests
// derive seeds from the number).
inline int architecture_index(std::string_view architecture) {
  return architecture == "qwen3" ? 0 : architecture == "qwen2" ? 1 : 2;
}

// The "tiny" preset (hidden 64, 2 layers, 4 heads / 2 KV heads of 16) with a 1024-token
// vocabulary; Llama gets a separate lm_head so both output-head paths are covered.
inline ModelConfig scoring_test_config(std::string_view architecture) {
  ModelConfig config = preset_model_config("tiny", architecture_named(architecture));
  config.vocab_size = 1024;
  config.max_position_embeddings = 4096;
  if (architecture == "llama") config.tie_word_embeddings = false;
  return config;
}

inline std::filesystem::path write_scoring_test_checkpoint(std::string_view architecture, DType dtype,
                                                           uint64_t seed = 11) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("sift_scoring_" + std::to_string(::getpid())) /
                                    (std::string(architecture) + "_" +
                                     std::string(dtype_name(dtype)));
  write_random_checkpoint(dir, scoring_test_config(architecture), dtype, seed);
  return dir;
}

inline void remove_scoring_test_checkpoints() {
  std::filesystem::remove_all(std::filesystem::temp_directory_path() /
                              ("sift_scoring_" + std::to_string(::getpid())));
}

}  // namespace sift::testing
