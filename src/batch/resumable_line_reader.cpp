#include "batch/resumable_line_reader.h"

#include "core/error.h"

namespace sift::batch {

ResumableLineReader::ResumableLineReader(ResumableInput& input, int64_t lines_before, int64_t offset_before, int64_t max_line_bytes,
                       size_t chunk_bytes)
    : input_(input),
      splitter_(max_line_bytes, lines_before),
      chunk_(std::make_unique_for_overwrite<char[]>(chunk_bytes)),
      chunk_bytes_(chunk_bytes),
      offset_(offset_before) {
  if (chunk_bytes == 0) fail("{}: the read chunk must be at least 1 byte", input.path().string());
}

bool ResumableLineReader::refill() {
  chunk_size_ = input_.read(chunk_.get(), chunk_bytes_);
  chunk_pos_ = 0;
  if (chunk_size_ == 0) return false;
  chunk_end_ = input_.position_in_chunk(chunk_size_);
  return true;
}

void ResumableLineReader::consumed_to(std::string_view rest) {
  const size_t pos = chunk_size_ - rest.size();
  offset_ += int64_t(pos - chunk_pos_);
  chunk_pos_ = pos;
}

InputPosition ResumableLineReader::position() const {
  // At the end of the input no chunk is left: the position after the last byte read.
  return chunk_size_ == 0 ? chunk_end_ : input_.position_in_chunk(chunk_pos_);
}

bool ResumableLineReader::next(ResumableLine& line) {
  for (;;) {
    if (chunk_pos_ == chunk_size_ && !refill()) {
      if (!splitter_.finish(line)) return false;  // else a last line without an ending
      break;
    }
    std::string_view rest = unread();
    const bool ended = splitter_.take(rest, line);
    consumed_to(rest);
    if (!ended) continue;
    if (splitter_.after_cr()) {  // ended at a "\r" ending the chunk: is the next byte its "\n"?
      if (chunk_pos_ == chunk_size_) refill();
      rest = unread();
      splitter_.take_lf_after_cr(rest);
      consumed_to(rest);
    }
    break;
  }
  line.next = position();
  line.next_offset = offset_;
  // Plain: the line's own end; compressed: what the decoder has taken of the file so far.
  line.file_offset = input_.compression() == Compression::none ? line.next.restart_offset : input_.file_offset();
  return true;
}

}  // namespace sift::batch
