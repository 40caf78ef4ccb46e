#include "label/jsonl_file.h"

#include "core/error.h"
#include "io/json_parse.h"

namespace sift::label {

JsonlFile::JsonlFile(const std::filesystem::path& path, int64_t max_line_bytes)
    : path_(path), stream_(path, std::ios::binary), reader_(stream_, max_line_bytes) {
  if (!stream_ || std::filesystem::is_directory(path)) fail("{}: cannot open for reading", path.string());
}

bool JsonlFile::next(std::string& text) {
  const bool more = reader_.next(line_);  // at the end, line_ keeps the last line's number
  if (more) text = std::move(line_.text);
  else text.clear();
  return more;
}

std::string JsonlFile::where() const { return path_.string() + ":" + std::to_string(line_.number); }

nlohmann::json parse_object_line(const std::string& text, bool too_long) {
  if (too_long) fail("line longer than {} MiB", kDefaultMaxLineBytes >> 20);
  if (text.find_first_not_of(" \t") == std::string::npos) fail("empty line (expected a JSON object)");
  const nlohmann::json object = parse_json(text, "");
  if (!object.is_object()) fail("expected a JSON object, got {}", object.type_name());
  return object;
}

}  // namespace sift::label
