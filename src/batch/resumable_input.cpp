#include "batch/resumable_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "batch/input_codecs.h"
#include "core/error.h"

namespace sift::batch {
namespace {

constexpr size_t kReadBlockBytes = size_t(1) << 20;

Compression detect_compression(const unsigned char* head, size_t n) {
  if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) return Compression::gzip;
  if (n >= 4 && head[0] == 0x28 && head[1] == 0xb5 && head[2] == 0x2f && head[3] == 0xfd) return Compression::zstd;
  return Compression::none;
}

}  // namespace

std::string_view compression_name(Compression compression) {
  switch (compression) {
    case Compression::none: return "plain";
    case Compression::gzip: return "gzip";
    case Compression::zstd: return "zstd";
  }
  return "?";
}

ResumableInput::ResumableInput(const std::filesystem::path& path)
    : path_(path), buffer_(std::make_unique_for_overwrite<char[]>(kReadBlockBytes)) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail("{}: cannot open the input: {}", path.string(), std::strerror(errno));
  struct stat info{};
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd_);
    fail("{}: the input must be a regular file (sift batch seeks in it to resume)", path.string());
  }
  file_size_ = info.st_size;
  unsigned char head[4] = {};
  const ssize_t n = ::pread(fd_, head, sizeof head, 0);
  compression_ = detect_compression(head, n > 0 ? size_t(n) : 0);
  if (compression_ != Compression::none) codec_ = make_stream_codec(compression_);
  seek({});
}

ResumableInput::~ResumableInput() {
  if (fd_ >= 0) ::close(fd_);
}

int64_t ResumableInput::file_offset() const { return buffer_offset_ + int64_t(buffer_begin_); }

bool ResumableInput::fill() {
  if (buffer_begin_ > 0) {  // keep the unconsumed bytes at the front
    std::memmove(buffer_.get(), buffer_.get() + buffer_begin_, buffer_end_ - buffer_begin_);
    buffer_offset_ += int64_t(buffer_begin_);
    buffer_end_ -= buffer_begin_;
    buffer_begin_ = 0;
  }
  if (buffer_end_ == kReadBlockBytes) return true;
  for (;;) {
    const ssize_t n = ::read(fd_, buffer_.get() + buffer_end_, kReadBlockBytes - buffer_end_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("{}: read error at byte {}: {}", path_.string(), file_offset(), std::strerror(errno));
    buffer_end_ += size_t(n);
    return n > 0;
  }
}

void ResumableInput::seek(const InputPosition& position) {
  const bool plain = compression_ == Compression::none;
  const int64_t target = plain ? position.restart_offset + position.skip_bytes : position.restart_offset;
  if (position.restart_offset < 0 || position.skip_bytes < 0 || target > file_size_)
    fail("{}: the input is shorter than the position to resume from (byte {}): it is not the job's input",
         path_.string(), target);
  if (::lseek(fd_, target, SEEK_SET) != target) fail("{}: cannot seek to byte {}", path_.string(), target);
  buffer_offset_ = target;
  buffer_begin_ = buffer_end_ = 0;
  chunk_start_ = {target, 0};
  if (plain) return;
  stream_open_ = false;  // the next read starts a member/frame at `target`
  std::vector<char> scratch(size_t(std::min<int64_t>(position.skip_bytes, int64_t(kReadBlockBytes))));
  for (int64_t left = position.skip_bytes; left > 0;) {
    const size_t n = read(scratch.data(), size_t(std::min<int64_t>(left, int64_t(scratch.size()))));
    if (n == 0 || chunk_start_.restart_offset != position.restart_offset)
      fail("{}: no {} stream starting at byte {} holds {} decoded bytes: the input is not the job's input",
           path_.string(), compression_name(compression_), position.restart_offset, position.skip_bytes);
    left -= int64_t(n);
  }
}

size_t ResumableInput::read(char* buffer, size_t capacity) {
  if (compression_ != Compression::none) return read_compressed(buffer, capacity);
  if (buffer_begin_ == buffer_end_ && !fill()) return 0;
  const size_t n = std::min(capacity, buffer_end_ - buffer_begin_);
  std::memcpy(buffer, buffer_.get() + buffer_begin_, n);
  chunk_start_ = {file_offset(), 0};
  buffer_begin_ += n;
  return n;
}

size_t ResumableInput::read_compressed(char* buffer, size_t capacity) {
  const std::string_view format = compression_name(compression_);
  for (;;) {
    if (!stream_open_) {  // the last member/frame ended: another one, or the end of the file
      if (buffer_begin_ == buffer_end_ && !fill()) return 0;
      codec_->reset();
      stream_open_ = true;
      stream_start_ = file_offset();
      decoded_in_stream_ = 0;
    }
    if (buffer_begin_ == buffer_end_ && !fill())
      fail("{}: the {} data is truncated (the file ends inside the stream that starts at byte {})", path_.string(),
           format, stream_start_);
    CodecStep step;
    try {
      step = codec_->decode(buffer_.get() + buffer_begin_, buffer_end_ - buffer_begin_, buffer, capacity);
    } catch (const Error& e) {
      fail("{}: byte {}: {}", path_.string(), file_offset(), e.what());
    }
    buffer_begin_ += step.consumed;
    if (step.stream_end) stream_open_ = false;
    if (step.produced > 0) {
      chunk_start_ = {stream_start_, decoded_in_stream_};
      decoded_in_stream_ += int64_t(step.produced);
      return step.produced;
    }
    // Nothing out: the decoder needs more input than the buffer holds (or a stream ended empty).
    if (!step.stream_end && step.consumed == 0 && !fill())
      fail("{}: the {} data is truncated (the file ends inside the stream that starts at byte {})", path_.string(),
           format, stream_start_);
  }
}

InputPosition ResumableInput::position_in_chunk(size_t n) const {
  if (compression_ == Compression::none) return {chunk_start_.restart_offset + int64_t(n), 0};
  return {chunk_start_.restart_offset, chunk_start_.skip_bytes + int64_t(n)};
}

}  // namespace sift::batch
