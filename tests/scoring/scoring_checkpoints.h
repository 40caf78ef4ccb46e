#pragma once
// Small random checkpoints of every architecture for scoring tests, written into a
// per-process temporary folder (ctest may run several test processes at once).
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

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

// Sets every element of the F32 tensor `name` of the safetensors file `path` to `value`, in
// place (header: u64 length, then JSON with "data_offsets" counted from the data section).
inline void overwrite_f32_tensor(const std::filesystem::path& path, const std::string& name, float value) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  uint64_t header_bytes = 0;
  file.read(reinterpret_cast<char*>(&header_bytes), sizeof header_bytes);
  std::string header(header_bytes, '\0');
  file.read(header.data(), static_cast<std::streamsize>(header.size()));
  const nlohmann::json tensor = nlohmann::json::parse(header).at(name);
  if (tensor.at("dtype") != "F32") throw std::runtime_error(name + " is not F32");
  const int64_t begin = tensor.at("data_offsets")[0], end = tensor.at("data_offsets")[1];
  file.seekp(static_cast<std::streamoff>(sizeof header_bytes + header_bytes + begin));
  for (int64_t at = begin; at < end; at += sizeof value) file.write(reinterpret_cast<const char*>(&value), sizeof value);
  if (!file) throw std::runtime_error("cannot overwrite " + name + " in " + path.string());
}

inline void remove_scoring_test_checkpoints() {
  std::filesystem::remove_all(std::filesystem::temp_directory_path() /
                              ("sift_scoring_" + std::to_string(::getpid())));
}

}  // namespace sift::testing
