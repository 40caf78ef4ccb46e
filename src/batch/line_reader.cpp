#include "batch/line_reader.h"

#include <cstring>

namespace sift::batch {

LineReader::LineReader(InputFile& input, int64_t lines_before, int64_t offset_before, size_t max_line_bytes)
    : input_(input),
      chunk_(size_t(1) << 20),
      line_number_(lines_before),
      offset_(offset_before),
      max_line_bytes_(max_line_bytes) {}

bool LineReader::next(InputLine& line) {
  line.text.clear();
  line.too_long = false;
  bool started = false;  // a byte of this line was read
  for (;;) {
    if (chunk_pos_ == chunk_size_) {
      chunk_size_ = input_.read(chunk_.data(), chunk_.size());
      chunk_pos_ = 0;
      if (chunk_size_ == 0) {
        if (!started) return false;
        line.next = chunk_end_;  // a last line without "\n"
        break;
      }
      chunk_end_ = input_.position_in_chunk(chunk_size_);
    }
    const char* begin = chunk_.data() + chunk_pos_;
    const size_t available = chunk_size_ - chunk_pos_;
    const char* newline = static_cast<const char*>(std::memchr(begin, '\n', available));
    const size_t n = newline ? size_t(newline - begin) : available;
    started = true;
    const size_t room = max_line_bytes_ - std::min(max_line_bytes_, line.text.size());
    if (n > room) line.too_long = true;
    line.text.append(begin, std::min(n, room));
    offset_ += int64_t(n);
    chunk_pos_ += n;
    if (newline) {
      ++chunk_pos_;
      ++offset_;
      line.next = input_.position_in_chunk(chunk_pos_);
      break;
    }
  }
  line.number = ++line_number_;
  line.next_offset = offset_;
  // Plain: the line's own end; compressed: what the decoder has taken of the file so far.
  line.file_offset = input_.compression() == Compression::none ? line.next.restart_offset : input_.file_offset();
  return true;
}

}  // namespace sift::batch
