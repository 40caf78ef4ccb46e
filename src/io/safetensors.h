#pragma once
// SafetensorsFile: a read-only, memory-mapped .safetensors file with a validated header.
//
// File layout (all integers little-endian):
//   u64 N                      header length in bytes
//   N bytes of UTF-8 JSON      {"<tensor name>": {"dtype": "F32"|"BF16"|"F16",
//                                                 "shape": [d0, d1, ...],
//                                                 "data_offsets": [begin, end]},
//                               ..., "__metadata__": {"<key>": "<string>", ...}}
//   data section               tensor bytes; data_offsets count from its first byte,
//                              row-major, end - begin == product(shape) * dtype size.
//
// open() checks everything before any tensor is touched: header length within the file,
// valid JSON object, supported dtype, shape/offset agreement (without overflow), offsets
// inside the data section, begin <= end, no two tensors overlapping. Every problem is a
// sift::Error naming the file and, where there is one, the tensor; nothing allocates more
// than the header's size.
//
// Memory: tensors are read straight from the mapping; release(info) drops the tensor's
// pages from this process (madvise MADV_DONTNEED) once it has been converted, so loading a
// model does not keep both the mapped file and the F32 copies resident.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/dtype.h"

namespace sift {

struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::span<const std::byte> bytes;  // the tensor's data inside the mapping

  int64_t n_elements() const;
};

// "[a, b, c]": for messages about shapes.
std::string shape_to_string(std::span<const int64_t> shape);

class SafetensorsFile {
 public:
  static constexpr uint64_t kMaxHeaderBytes = 100u << 20;  // as the reference implementation

  // Maps the file read-only and validates its header.
  static SafetensorsFile open(const std::filesystem::path& path);
  // Validates `bytes` as a whole safetensors file without copying it; the caller keeps the
  // bytes alive as long as this object. `label` names it in messages (e.g. for fuzzing).
  static SafetensorsFile from_memory(std::span<const std::byte> bytes, std::string label);

  SafetensorsFile(SafetensorsFile&& other) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&& other) noexcept;
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;
  ~SafetensorsFile();

  const std::string& label() const { return label_; }  // the path, or the from_memory label
  const std::vector<TensorInfo>& tensors() const { return tensors_; }  // by data offset
  const nlohmann::json& metadata() const { return metadata_; }  // "__metadata__" or {}
  const TensorInfo* find(std::string_view name) const;  // nullptr when absent
  const TensorInfo& info(std::string_view name) const;  // Error when absent

  // Converts the tensor to F32 into dst (exactly n_elements() floats, else Error); NaN and
  // Inf are kept as they are (model weights are read through Checkpoint, which refuses them).
  void read_f32_into(const TensorInfo& tensor, std::span<float> dst) const;
  std::vector<float> read_f32(std::string_view name) const;
  // Drops the tensor's mapped pages from memory (they are re-read from disk if touched
  // again). No-op for from_memory files.
  void release(const TensorInfo& tensor) const;

 private:
  SafetensorsFile() = default;
  void parse(std::span<const std::byte> file);
  void unmap() noexcept;

  std::string label_;
  void* mapping_ = nullptr;  // owned mmap, or nullptr for from_memory
  size_t mapping_size_ = 0;
  std::vector<TensorInfo> tensors_;
  std::unordered_map<std::string, size_t> index_;  // name -> position in tensors_
  nlohmann::json metadata_ = nlohmann::json::object();
};

}  // namespace sift
