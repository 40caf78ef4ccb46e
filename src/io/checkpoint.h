#pragma once
// Checkpoint: the tensors of a Hugging Face model directory, across one or many files.
//
//   DIR/model.safetensors                  one file, or
//   DIR/model.safetensors.index.json       {"weight_map": {"<tensor>": "<shard file>", ...}}
//   DIR/model-00001-of-0000N.safetensors   ... the shards it names (paths relative to DIR)
//
// A single model.safetensors wins when both exist. Every shard is opened and validated up
// front (SafetensorsFile); the index must agree with the shards (each mapped tensor is in
// its shard, no shard holds a tensor the index does not map, no name twice).
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/safetensors.h"

namespace sift {

// The shard files model.safetensors.index.json names (its weight_map's values), each once, in
// name order: an Error naming the index when it is not such an object or names a file outside
// the directory.
std::vector<std::string> index_shard_files(const std::filesystem::path& index_path);

class Checkpoint {
 public:
  static Checkpoint open(const std::filesystem::path& dir);
  // A checkpoint of one already opened file (e.g. SafetensorsFile::from_memory); `dir`
  // names it in messages.
  static Checkpoint from_file(SafetensorsFile file, const std::filesystem::path& dir);

  const std::filesystem::path& dir() const { return dir_; }
  std::vector<std::string> names() const;  // sorted
  bool contains(std::string_view name) const;
  const TensorInfo& info(std::string_view name) const;  // Error naming the tensor when absent

  // The tensor converted to F32. Error "<dir>: tensor X has shape [a, b], expected [c, d]"
  // when the shape differs, and "<dir>: tensor X holds nan at element i" for the first NaN or
  // Inf (weights must be finite). The tensor's mapped pages are released afterwards.
  std::vector<float> read_f32(std::string_view name, const std::vector<int64_t>& expected_shape) const;
  void read_f32_into(std::string_view name, const std::vector<int64_t>& expected_shape,
                     std::span<float> dst) const;

  // Elements [first, first + dst.size()) of the tensor as F32, for loading row by row; the
  // same check for NaN and Inf (found in the conversion pass, no second pass).
  void read_f32_range(std::string_view name, int64_t first, std::span<float> dst) const;

  // Drops the tensor's mapped pages from memory once the caller has converted it (see
  // SafetensorsFile::release); read_f32 / read_f32_into do this themselves.
  void release(std::string_view name) const;

  // Checks the set of tensor names against what the model expects:
  //   an expected name that is absent          -> Error naming it (all of them, sorted);
  //   a present name neither expected nor ignorable -> Error naming them.
  // An `ignorable` entry matches a name exactly, or, when it starts with '*', any name
  // ending in the rest (e.g. "*.rotary_emb.inv_freq", or "lm_head.weight" when tied).
  void check_names(const std::vector<std::string>& expected,
                   const std::vector<std::string>& ignorable = {}) const;

 private:
  struct Location {
    size_t file;  // index into files_
    const TensorInfo* info;
  };
  const Location& locate(std::string_view name) const;

  std::filesystem::path dir_;
  std::vector<SafetensorsFile> files_;
  std::unordered_map<std::string, Location> tensors_;
};

}  // namespace sift
