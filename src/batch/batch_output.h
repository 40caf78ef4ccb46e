#pragma once
// Where `sift batch` lines go: OUT, plain, or zstd-compressed when its name ends in ".zst".
//
// Plain: each line is appended; sync() makes everything appended durable.
//
// zstd: lines are gathered into frames of at least kZstdFrameBytes of text, closed at a line
// end and compressed alone (level 3, with checksum and content size), so the frames, and the
// file, depend only on the lines: a resumed run and a merge of shards write the bytes one
// uninterrupted run writes. The lines of the frame being filled are kept durable beside OUT,
// in OUT.progress.tail (appended as they come), so a checkpoint need not wait for a frame
// to fill. When a frame closes, the caller checkpoints at once (frame_closed()) and then calls
// checkpoint_done(), which empties the tail file: at every checkpoint the tail file's first
// pending bytes are exactly the open frame's lines.
//
// Both files keep their SHA-256 as they grow (file_digest.h): a checkpoint records each
// file's length and digest, and a resume checks them before it cuts anything.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

#include "batch/file_digest.h"

namespace sift::batch {

inline constexpr int64_t kZstdFrameBytes = int64_t(1) << 20;

// What a checkpoint records of the output.
struct OutputState {
  FileCheckpoint file = empty_file_checkpoint();     // OUT
  FileCheckpoint pending = empty_file_checkpoint();  // zstd: the open frame's lines in OUT.progress.tail
  bool operator==(const OutputState&) const = default;
};

class BatchOutput {
 public:
  virtual ~BatchOutput() = default;
  virtual void append_line(std::string_view line) = 0;  // without the "\n"
  virtual void sync() = 0;                              // everything appended is durable
  virtual bool frame_closed() const { return false; }   // checkpoint now, then checkpoint_done()
  virtual void checkpoint_done() {}
  virtual void finish() = 0;  // closes the last frame (an empty file gets one empty frame) and syncs
  virtual void remove_side_files() {}  // after the final checkpoint
  virtual OutputState state() const = 0;
};

bool is_zstd_output(const std::filesystem::path& path);  // the name ends in ".zst"
std::filesystem::path tail_file_path(const std::filesystem::path& output);  // OUT.progress.tail

// A new output (an Error if it exists), or the output of a checkpoint (recorded in `record`,
// the progress file, with `rows` lines), checked against it and cut back to it; zstd or plain
// as `zstd` says (is_zstd_output of the name the user gave). An Error naming the file and the
// record when OUT or its tail file does not match what the checkpoint records (their bytes,
// then their rows: check_output_rows): nothing is cut then. OUT and its tail file are never
// opened through a symbolic link (io/own_file.h).
std::unique_ptr<BatchOutput> create_batch_output(const std::filesystem::path& path, bool zstd);
std::unique_ptr<BatchOutput> resume_batch_output(const std::filesystem::path& path, bool zstd, const OutputState& state,
                                                 int64_t rows, const std::filesystem::path& record);

// An Error naming OUT and `record` unless OUT's first state.file.bytes bytes (a zstd OUT
// decoded) and the tail file's first state.pending.bytes hold `rows` lines: a checkpoint whose
// counts were changed to agree with each other still disagrees with OUT. Reads OUT whole.
void check_output_rows(const std::filesystem::path& path, bool zstd, const OutputState& state, int64_t rows,
                       const std::filesystem::path& record);

}  // namespace sift::batch
