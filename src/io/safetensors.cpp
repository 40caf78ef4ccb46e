#include "io/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>
#include <cstring>

#include "core/error.h"
#include "io/json_parse.h"

namespace sift {
namespace {

using nlohmann::json;

// Reads a non-negative integer that fits in uint64 from a JSON value, or fails.
uint64_t json_to_u64(const json& value, const std::string& where, const char* what) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer() && value.get<int64_t>() >= 0) return static_cast<uint64_t>(value.get<int64_t>());
  fail("{}: {} must be a non-negative integer, got {}", where, what, value.dump());
}

uint64_t read_le_u64(const std::byte* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint64_t>(p[i]);
  return v;
}

struct ParsedEntry {
  TensorInfo info;
  uint64_t begin, end;
};

// Validates one header entry against the data section's size.
ParsedEntry parse_entry(const std::string& label, const std::string& name, const json& entry,
                        uint64_t data_size) {
  const std::string where = fmt::format("{}: tensor \"{}\"", label, name);
  if (!entry.is_object()) fail("{}: header entry must be an object, got {}", where, entry.type_name());
  auto dtype_it = entry.find("dtype");
  auto shape_it = entry.find("shape");
  auto offsets_it = entry.find("data_offsets");
  if (dtype_it == entry.end() || !dtype_it->is_string()) fail("{}: missing or non-string \"dtype\"", where);
  if (shape_it == entry.end() || !shape_it->is_array()) fail("{}: missing or non-list \"shape\"", where);
  if (offsets_it == entry.end() || !offsets_it->is_array() || offsets_it->size() != 2)
    fail("{}: \"data_offsets\" must be a list [begin, end]", where);

  ParsedEntry parsed;
  parsed.info.name = name;
  const std::string dtype_text = dtype_it->get<std::string>();
  auto dtype = parse_dtype(dtype_text);
  if (!dtype) fail("{}: dtype \"{}\" is not supported (supported: F32, BF16, F16)", where, dtype_text);
  parsed.info.dtype = *dtype;

  // product(shape) * element size, refusing anything that overflows 64 bits.
  uint64_t n_bytes = dtype_size(*dtype);
  for (const json& dim : *shape_it) {
    const uint64_t d = json_to_u64(dim, where, "each shape dimension");
    if (d > static_cast<uint64_t>(INT64_MAX)) fail("{}: shape dimension {} is too large", where, d);
    parsed.info.shape.push_back(static_cast<int64_t>(d));
    if (__builtin_mul_overflow(n_bytes, d, &n_bytes))
      fail("{}: shape {} is too large (byte size overflows)", where, shape_to_string(parsed.info.shape));
  }
  if (parsed.info.shape.size() > 8) fail("{}: {} dimensions, at most 8 are supported", where, parsed.info.shape.size());
  parsed.begin = json_to_u64((*offsets_it)[0], where, "data_offsets[0]");
  parsed.end = json_to_u64((*offsets_it)[1], where, "data_offsets[1]");
  if (parsed.begin > parsed.end)
    fail("{}: data_offsets [{}, {}] are out of order (begin > end)", where, parsed.begin, parsed.end);
  if (parsed.end > data_size)
    fail("{}: data_offsets [{}, {}] are out of range: the data section holds {} bytes (truncated file?)", where,
         parsed.begin, parsed.end, data_size);
  if (parsed.end - parsed.begin != n_bytes)
    fail("{}: shape {} of {} needs {} bytes but data_offsets [{}, {}] span {}", where,
         shape_to_string(parsed.info.shape), dtype_text, n_bytes, parsed.begin, parsed.end,
         parsed.end - parsed.begin);
  return parsed;
}

}  // namespace

int64_t TensorInfo::n_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_to_string(std::span<const int64_t> shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

SafetensorsFile SafetensorsFile::open(const std::filesystem::path& path) {
  SafetensorsFile file;
  file.label_ = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("{}: cannot open: {}", file.label_, std::strerror(errno));
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    fail("{}: cannot stat: {}", file.label_, std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    fail("{}: not a regular file", file.label_);
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size > 0) {
    void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      fail("{}: cannot mmap {} bytes: {}", file.label_, size, std::strerror(err));
    }
    file.mapping_ = mapping;
    file.mapping_size_ = size;
  }
  ::close(fd);  // the mapping keeps the file alive
  file.parse({static_cast<const std::byte*>(file.mapping_), size});
  return file;
}

SafetensorsFile SafetensorsFile::from_memory(std::span<const std::byte> bytes, std::string label) {
  SafetensorsFile file;
  file.label_ = std::move(label);
  file.parse(bytes);
  return file;
}

void SafetensorsFile::parse(std::span<const std::byte> file) {
  if (file.size() < 8)
    fail("{}: file is {} bytes, too short for the 8-byte header length (truncated file?)", label_, file.size());
  const uint64_t header_len = read_le_u64(file.data());
  if (header_len > kMaxHeaderBytes)
    fail("{}: header length {} exceeds the limit of {} bytes (corrupt file?)", label_, header_len, kMaxHeaderBytes);
  if (header_len > file.size() - 8)
    fail("{}: header length {} is longer than the {} bytes that follow it (truncated file?)", label_, header_len,
         file.size() - 8);
  const auto* header_begin = reinterpret_cast<const char*>(file.data() + 8);
  json header = parse_json(std::string_view(header_begin, header_len), label_ + " header");
  if (!header.is_object()) fail("{}: header must be a JSON object, got {}", label_, header.type_name());

  const std::span<const std::byte> data = file.subspan(8 + header_len);
  std::vector<ParsedEntry> entries;
  entries.reserve(header.size());
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    json& entry = it.value();
    if (name == "__metadata__") {
      if (!entry.is_object() && !entry.is_null())
        fail("{}: \"__metadata__\" must be an object, got {}", label_, entry.type_name());
      if (entry.is_object()) metadata_ = std::move(entry);
      continue;
    }
    entries.push_back(parse_entry(label_, name, entry, data.size()));
  }
  // Ranges must not overlap (zero-length tensors overlap nothing).
  std::sort(entries.begin(), entries.end(), [](const ParsedEntry& a, const ParsedEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  const ParsedEntry* previous = nullptr;
  for (const ParsedEntry& e : entries) {
    if (e.begin == e.end) continue;
    if (previous && e.begin < previous->end)
      fail("{}: tensors \"{}\" [{}, {}] and \"{}\" [{}, {}] have overlapping data_offsets", label_,
           previous->info.name, previous->begin, previous->end, e.info.name, e.begin, e.end);
    previous = &e;
  }
  tensors_.reserve(entries.size());
  for (ParsedEntry& e : entries) {
    e.info.bytes = data.subspan(e.begin, e.end - e.begin);
    index_.emplace(e.info.name, tensors_.size());
    tensors_.push_back(std::move(e.info));
  }
}

SafetensorsFile::SafetensorsFile(SafetensorsFile&& other) noexcept { *this = std::move(other); }

SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&& other) noexcept {
  if (this != &other) {
    unmap();
    label_ = std::move(other.label_);
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_size_ = std::exchange(other.mapping_size_, 0);
    tensors_ = std::move(other.tensors_);  // spans point into the mapping, which moved with us
    index_ = std::move(other.index_);
    metadata_ = std::move(other.metadata_);
  }
  return *this;
}

SafetensorsFile::~SafetensorsFile() { unmap(); }

void SafetensorsFile::unmap() noexcept {
  if (mapping_) ::munmap(mapping_, mapping_size_);
  mapping_ = nullptr;
  mapping_size_ = 0;
}

const TensorInfo* SafetensorsFile::find(std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

const TensorInfo& SafetensorsFile::info(std::string_view name) const {
  const TensorInfo* tensor = find(name);
  if (!tensor) fail("{}: no tensor named \"{}\"", label_, name);
  return *tensor;
}

void SafetensorsFile::read_f32_into(const TensorInfo& tensor, std::span<float> dst) const {
  const auto n = static_cast<size_t>(tensor.n_elements());
  if (dst.size() != n)
    fail("{}: tensor \"{}\" has {} elements, the destination holds {}", label_, tensor.name, n, dst.size());
  convert_to_f32(tensor.dtype, tensor.bytes.data(), dst.data(), n);  // NaN / Inf kept (Checkpoint refuses them)
}

std::vector<float> SafetensorsFile::read_f32(std::string_view name) const {
  const TensorInfo& tensor = info(name);
  std::vector<float> out(static_cast<size_t>(tensor.n_elements()));
  read_f32_into(tensor, out);
  return out;
}

void SafetensorsFile::release(const TensorInfo& tensor) const {
  if (!mapping_ || tensor.bytes.empty()) return;
  // Whole pages only, rounded outwards: a neighbour's page dropped here is simply re-read
  // from the file if it is touched again (the mapping is private and read-only).
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto base = reinterpret_cast<uintptr_t>(mapping_);
  const auto begin = reinterpret_cast<uintptr_t>(tensor.bytes.data()) & ~(page - 1);
  const auto end = std::min(reinterpret_cast<uintptr_t>(tensor.bytes.data() + tensor.bytes.size()) + page - 1,
                            base + mapping_size_ + page - 1) & ~(page - 1);
  ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace sift
