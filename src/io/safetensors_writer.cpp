#include "io/safetensors_writer.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "io/atomic_file.h"

namespace sift {

TensorSource TensorSource::from_data(std::string name, std::vector<int64_t> shape, std::span<const float> data) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (static_cast<int64_t>(data.size()) != n)
    fail("tensor \"{}\": {} values given for a shape of {} elements", name, data.size(), n);
  return {std::move(name), std::move(shape), [data](int64_t first, std::span<float> out) {
            std::copy_n(data.begin() + first, out.size(), out.begin());
          }};
}

void write_safetensors(const std::filesystem::path& path, const std::vector<TensorSource>& tensors, DType dtype,
                       const std::map<std::string, std::string>& metadata) {
  const size_t element_size = dtype_size(dtype);

  // Header: offsets follow the order given, back to back.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  nlohmann::ordered_json meta = {{"format", "pt"}};
  for (const auto& [key, value] : metadata) meta[key] = value;
  header["__metadata__"] = meta;
  std::set<std::string> seen;
  uint64_t offset = 0;
  std::vector<int64_t> sizes;
  for (const TensorSource& tensor : tensors) {
    if (!seen.insert(tensor.name).second) fail("{}: tensor \"{}\" given twice", path.string(), tensor.name);
    int64_t n = 1;
    for (int64_t d : tensor.shape) {
      if (d < 0) fail("{}: tensor \"{}\" has a negative dimension", path.string(), tensor.name);
      n *= d;
    }
    sizes.push_back(n);
    const uint64_t n_bytes = static_cast<uint64_t>(n) * element_size;
    header[tensor.name] = {{"dtype", dtype_name(dtype)}, {"shape", tensor.shape}, {"data_offsets", {offset, offset + n_bytes}}};
    offset += n_bytes;
  }
  std::string header_text = header.dump();
  header_text.append((8 - header_text.size() % 8) % 8, ' ');

  AtomicFile out(path);
  uint64_t header_len = header_text.size();
  char len_bytes[8];
  for (int i = 0; i < 8; ++i) len_bytes[i] = static_cast<char>(header_len >> (8 * i));
  out.write({len_bytes, 8});
  out.write(header_text);

  std::vector<float> chunk;
  std::vector<uint16_t> narrowed;
  for (size_t t = 0; t < tensors.size(); ++t) {
    for (int64_t first = 0; first < sizes[t]; first += kWriteChunk) {
      const auto n = static_cast<size_t>(std::min(kWriteChunk, sizes[t] - first));
      chunk.resize(n);
      tensors[t].fill(first, chunk);
      if (dtype == DType::F32) {
        out.write({reinterpret_cast<const char*>(chunk.data()), n * 4});
      } else {
        narrowed.resize(n);
        for (size_t i = 0; i < n; ++i) narrowed[i] = dtype == DType::BF16 ? f32_to_bf16(chunk[i]) : f32_to_f16(chunk[i]);
        out.write({reinterpret_cast<const char*>(narrowed.data()), n * 2});
      }
    }
  }
  out.commit();
}

}  // namespace sift
