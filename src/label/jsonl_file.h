#pragma once
// Reading a JSON-lines input file of `sift label` (profiles, catalog) line by line, split by
// LineSplitter's rule (io/line_splitter.h) with memory bounded by kDefaultMaxLineBytes: a
// longer line is reported (its bytes are skipped, not stored), never read whole. Each line's
// number (from 1) goes with it, for "file:line: what" messages.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "io/line_reader.h"

namespace sift::label {

class JsonlFile {
 public:
  // An Error when it cannot be opened. max_line_bytes: the limit (sift label keeps the
  // default, which parse_object_line's message quotes).
  explicit JsonlFile(const std::filesystem::path& path, int64_t max_line_bytes = kDefaultMaxLineBytes);

  // Reads the next line into `text`; false at the end. too_long(): the line was over the
  // limit and `text` is empty.
  bool next(std::string& text);
  int64_t line_number() const { return line_.number; }
  bool too_long() const { return line_.too_long; }
  // "path:line" of the line last read.
  std::string where() const;

 private:
  std::filesystem::path path_;
  std::ifstream stream_;
  LineReader reader_;
  InputLine line_;
};

// Parses one line as a JSON object; an Error saying why not (too long, blank, invalid JSON,
// not an object).
nlohmann::json parse_object_line(const std::string& text, bool too_long);

}  // namespace sift::label
