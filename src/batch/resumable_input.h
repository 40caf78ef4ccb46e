#pragma once
// ResumableInput: the input of `sift batch`, a JSON-lines file, plain or compressed (gzip,
// zstd; detected by its first bytes, whatever its name), read as decoded bytes with a
// position for every byte from which reading can resume in a later process without reading
// what came before.
//
// A position is (restart_offset, skip_bytes): decoding can start at file byte restart_offset,
// and skip_bytes decoded bytes are discarded after it. In a plain file every byte is a restart
// point, so skip_bytes is 0 and a resume is one seek. A compressed stream can restart only
// where a gzip member or zstd frame begins, so a resume decodes from the start of the member
// or frame holding the position: quick for files of many small frames (pzstd, bgzip, files
// concatenated), a decode of everything before it for a single big frame. (`sift batch
// --resume` does not seek to the position its checkpoint records: it reads the input again up
// to there, to check it, and goes on from where it is: run_batch.cpp.)
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

namespace sift::batch {

struct InputPosition {
  int64_t restart_offset = 0;  // file byte where decoding starts
  int64_t skip_bytes = 0;      // decoded bytes to discard from there
  bool operator==(const InputPosition&) const = default;
};

enum class Compression { none, gzip, zstd };
std::string_view compression_name(Compression compression);

class StreamCodec;  // input_codecs.h

class ResumableInput {
 public:
  // Opens the file and detects gzip (1f 8b) or zstd (28 b5 2f fd); an Error naming the file
  // when it cannot be opened or is not a regular file.
  explicit ResumableInput(const std::filesystem::path& path);
  ~ResumableInput();
  ResumableInput(const ResumableInput&) = delete;
  ResumableInput& operator=(const ResumableInput&) = delete;

  // Continues reading at `position` (from InputPosition of an earlier read of the same file).
  // An Error when the file ends before it, or it is not where a member or frame can restart.
  void seek(const InputPosition& position);

  // Reads up to `capacity` decoded bytes, all from one gzip member or zstd frame; 0 at the
  // end. An Error naming the file and byte for corrupt or truncated compressed data.
  size_t read(char* buffer, size_t capacity);
  // The position of byte n of what the last read() returned (n = its size: just after it).
  InputPosition position_in_chunk(size_t n) const;

  int64_t file_offset() const;  // file bytes consumed so far
  int64_t file_size() const { return file_size_; }
  Compression compression() const { return compression_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  bool fill();  // reads more file bytes into the buffer; false at the end of the file
  size_t read_compressed(char* buffer, size_t capacity);

  std::filesystem::path path_;
  int fd_ = -1;
  int64_t file_size_ = 0;
  Compression compression_ = Compression::none;
  std::unique_ptr<StreamCodec> codec_;
  std::unique_ptr<char[]> buffer_;    // file bytes [buffer_offset_, buffer_offset_ + buffer_end_)
  int64_t buffer_offset_ = 0;
  size_t buffer_begin_ = 0, buffer_end_ = 0;  // unconsumed: [buffer_begin_, buffer_end_)
  bool stream_open_ = false;          // inside a member/frame (compressed input)
  int64_t stream_start_ = 0;          // file offset where the current member/frame starts
  int64_t decoded_in_stream_ = 0;     // its bytes decoded so far
  InputPosition chunk_start_;         // position of the last read()'s first byte
};

}  // namespace sift::batch
