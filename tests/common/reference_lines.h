#pragma once
// The line rule of io/line_splitter.h written the plainest way, over a whole string at once:
// the reference the chunked readers are tested against. A line ends at "\n", "\r\n" or a
// bare "\r"; a last line without an ending is a line; the empty text after a final ending is
// not. A line longer than `max_line_bytes` keeps no text and is marked too long.
#include <cstdint>
#include <string>
#include <vector>

namespace sift::testing {

struct ReferenceLine {
  std::string text;      // empty when too_long
  int64_t bytes = 0;     // without the ending
  bool too_long = false;
  int64_t end = 0;       // offset just after the line's ending ("\r\n" whole)
  bool operator==(const ReferenceLine&) const = default;
};

inline std::vector<ReferenceLine> reference_lines(const std::string& text, int64_t max_line_bytes) {
  std::vector<ReferenceLine> lines;
  size_t start = 0;
  const auto add = [&](size_t stop, size_t end) {
    ReferenceLine line;
    line.bytes = int64_t(stop - start);
    line.too_long = line.bytes > max_line_bytes;
    if (!line.too_long) line.text = text.substr(start, stop - start);
    line.end = int64_t(end);
    lines.push_back(line);
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      add(i, i + 1);
      start = i + 1;
    } else if (text[i] == '\r') {
      const size_t end = i + 1 < text.size() && text[i + 1] == '\n' ? i + 2 : i + 1;
      add(i, end);
      start = end;
      i = end - 1;
    }
  }
  if (start < text.size()) add(text.size(), text.size());
  return lines;
}

}  // namespace sift::testing
