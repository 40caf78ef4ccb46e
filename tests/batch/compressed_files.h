#pragma once
// Test inputs for src/batch: text written plain, as gzip members (zlib) or zstd frames
// (libzstd), several streams concatenated, into a per-process temporary folder.
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace sift::testing {

inline std::filesystem::path batch_test_dir() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path d = std::filesystem::temp_directory_path() / ("sift_batch_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    static const struct Cleanup {
      std::filesystem::path path;
      ~Cleanup() { std::filesystem::remove_all(path); }
    } cleanup{d};
    return d;
  }();
  return dir;
}

inline std::string gzip_member(std::string_view text) {
  z_stream stream{};
  deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, uLong(text.size())) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = uInt(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = uInt(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

inline std::string zstd_frame(std::string_view text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3));
  return out;
}

// The text split into `parts` pieces (at arbitrary bytes, not lines), each compressed alone.
template <typename Compress>
std::string concatenated_streams(std::string_view text, size_t parts, Compress compress) {
  std::string out;
  const size_t step = text.size() / parts + 1;
  for (size_t at = 0; at < text.size(); at += step) out += compress(text.substr(at, step));
  return out;
}

inline std::filesystem::path write_test_file(const std::string& name, std::string_view bytes) {
  const std::filesystem::path path = batch_test_dir() / name;
  std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  return path;
}

inline std::string read_test_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace sift::testing
