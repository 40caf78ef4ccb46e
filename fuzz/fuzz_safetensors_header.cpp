// Fuzz target: arbitrary bytes as a whole .safetensors file. The parser must either accept
// the file, and then every tensor must convert to F32 without reading outside the input,
// or throw sift::Error; anything else (a crash, a sanitizer report, a huge allocation) is a bug.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/error.h"
#include "io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto file = sift::SafetensorsFile::from_memory({reinterpret_cast<const std::byte*>(data), size}, "fuzz-input");
    std::vector<float> values;
    for (const sift::TensorInfo& tensor : file.tensors()) {
      // A valid tensor's bytes lie inside the input, so its element count is bounded by it.
      if (static_cast<size_t>(tensor.n_elements()) > size) __builtin_trap();
      values.resize(static_cast<size_t>(tensor.n_elements()));
      file.read_f32_into(tensor, values);
      if (file.find(tensor.name) != &tensor) __builtin_trap();
    }
  } catch (const sift::Error&) {
    // a clear error is the expected outcome for broken input
  }
  return 0;
}
