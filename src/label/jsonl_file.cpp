#include "label/jsonl_file.h"

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "io/json_parse.h"

namespace sift::label {

JsonlFile::JsonlFile(const std::filesystem::path& path) : path_(path), stream_(path, std::ios::binary) {
  if (!stream_ || std::filesystem::is_directory(path)) fail("{}: cannot open for reading", path.string());
}

bool JsonlFile::next(std::string& text) {
  text.clear();
  too_long_ = false;
  std::streambuf* buffer = stream_.rdbuf();
  int c = buffer->sbumpc();
  if (c == std::char_traits<char>::eof()) return false;
  ++line_number_;
  for (; c != std::char_traits<char>::eof() && c != '\n'; c = buffer->sbumpc()) {
    if (text.size() < kMaxLineBytes) text.push_back(char(c));
    else too_long_ = true;
  }
  if (!text.empty() && text.back() == '\r') text.pop_back();
  if (too_long_) text.clear();
  return true;
}

std::string JsonlFile::where() const { return path_.string() + ":" + std::to_string(line_number_); }

int64_t count_lines(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) fail("{}: cannot open for reading", path.string());
  std::vector<char> block(size_t(1) << 20);
  int64_t lines = 0;
  char last = '\n';
  while (stream) {
    stream.read(block.data(), std::streamsize(block.size()));
    const std::streamsize n = stream.gcount();
    if (n <= 0) break;
    lines += std::count(block.data(), block.data() + n, '\n');
    last = block[size_t(n - 1)];
  }
  return lines + (last != '\n' ? 1 : 0);
}

nlohmann::json parse_object_line(const std::string& text, bool too_long) {
  if (too_long) fail("line longer than {} MiB", kMaxLineBytes >> 20);
  if (text.find_first_not_of(" \t") == std::string::npos) fail("empty line (expected a JSON object)");
  const nlohmann::json object = parse_json(text, "");
  if (!object.is_object()) fail("expected a JSON object, got {}", object.type_name());
  return object;
}

}  // namespace sift::label
