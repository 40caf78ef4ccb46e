#include "io/line_splitter.h"

#include <algorithm>

#include "core/error.h"

namespace sift {

LineSplitter::LineSplitter(int64_t max_line_bytes, int64_t lines_before)
    : max_line_bytes_(max_line_bytes), lines_(lines_before) {
  if (max_line_bytes_ < 0) fail("line limit must be at least 0 bytes, got {}", max_line_bytes_);
}

void LineSplitter::append(InputLine& line, std::string_view piece) const {
  line.bytes += static_cast<int64_t>(piece.size());
  if (line.too_long) return;
  if (line.bytes <= max_line_bytes_) {
    line.text.append(piece);
  } else {
    line.too_long = true;
    std::string().swap(line.text);  // frees it
  }
}

bool LineSplitter::take(std::string_view& input, InputLine& line) {
  if (!in_line_) {
    line.text.clear();
    line.bytes = 0;
    line.too_long = false;
    in_line_ = true;
  }
  if (after_cr_ && !input.empty()) take_lf_after_cr(input);
  const auto ending = std::find_if(input.begin(), input.end(), [](char c) { return c == '\n' || c == '\r'; });
  const auto n = static_cast<size_t>(ending - input.begin());
  append(line, input.substr(0, n));
  if (n == input.size()) {
    input = {};
    return false;
  }
  after_cr_ = input[n] == '\r';
  input.remove_prefix(n + 1);
  if (after_cr_ && !input.empty()) take_lf_after_cr(input);
  in_line_ = false;
  line.number = ++lines_;
  return true;
}

bool LineSplitter::finish(InputLine& line) {
  if (!in_line_ || line.bytes == 0) return false;  // nothing, or the empty text after an ending
  in_line_ = false;
  line.number = ++lines_;
  return true;
}

void LineSplitter::take_lf_after_cr(std::string_view& input) {
  if (!after_cr_) return;
  if (!input.empty() && input.front() == '\n') input.remove_prefix(1);
  after_cr_ = false;
}

}  // namespace sift
