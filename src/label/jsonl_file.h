#pragma once
// Reading a JSON-lines input file line by line with bounded memory: a line longer than
// kMaxLineBytes is reported (its bytes are skipped, not stored), never read whole. CRLF
// endings are accepted. Each line's number (from 1) goes with it, for "file:line: what"
// messages.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace sift::label {

inline constexpr size_t kMaxLineBytes = size_t(16) << 20;  // 16 MiB

class JsonlFile {
 public:
  explicit JsonlFile(const std::filesystem::path& path);  // Error when it cannot be opened

  // Reads the next line into `text`; false at the end. too_long(): the line was cut off.
  bool next(std::string& text);
  int64_t line_number() const { return line_number_; }
  bool too_long() const { return too_long_; }
  // "path:line" of the line last read.
  std::string where() const;

 private:
  std::filesystem::path path_;
  std::ifstream stream_;
  int64_t line_number_ = 0;
  bool too_long_ = false;
};

// Lines in the file (a last line without a newline counts), read in blocks.
int64_t count_lines(const std::filesystem::path& path);

// Parses one line as a JSON object; an Error saying why not (too long, blank, invalid JSON,
// not an object).
nlohmann::json parse_object_line(const std::string& text, bool too_long);

}  // namespace sift::label
