#pragma once
// write_safetensors: writes a .safetensors file (layout in io/safetensors.h) tensor by
// tensor, so a model far larger than memory can be written: each tensor's values come from
// a `fill` callback asked for consecutive chunks of at most kWriteChunk elements.
// Tensors are laid out in the order given; the header is padded with spaces to a multiple
// of 8 bytes (as the reference writer does) and carries "__metadata__": {"format": "pt"}.
// The file is written through an AtomicFile (io/atomic_file.h): a temporary beside `path`,
// flushed and renamed over it when complete.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "io/dtype.h"

namespace sift {

inline constexpr int64_t kWriteChunk = 1 << 20;

struct TensorSource {
  std::string name;
  std::vector<int64_t> shape;
  // fill(first, out): writes elements [first, first + out.size()) of the row-major tensor.
  std::function<void(int64_t first, std::span<float> out)> fill;

  // A source reading from `data` (which must outlive the write and hold product(shape)).
  static TensorSource from_data(std::string name, std::vector<int64_t> shape, std::span<const float> data);
};

// F32 writes the floats as they are; BF16 and F16 round each to nearest even (F16: past
// 65504 to inf, which the reader then rejects).
void write_safetensors(const std::filesystem::path& path, const std::vector<TensorSource>& tensors,
                       DType dtype, const std::map<std::string, std::string>& metadata = {});

}  // namespace sift
