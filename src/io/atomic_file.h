#pragma once
// AtomicFile: a file written whole or not at all, the one way sift replaces a file (sift.json,
// tokenizer.json, model.safetensors, checkpoints, outputs). Bytes go to a temporary file
// beside the target, "<dir>/.<name>.tmp-<pid>-<n>", and commit() makes them the target in
// one step:
//   fsync(temporary); rename(temporary, target); fsync(directory)
// so neither a reader, a crash, a kill nor a full disk ever sees a half-written target, and
// the target is never truncated before the new content is complete. Destroyed without
// commit(), the temporary is removed and the target is as it was.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace sift {

// Writes all of `bytes` to `fd` (retrying short writes and EINTR). Returns the bytes written;
// `error` is errno when that is fewer than bytes.size(), else 0.
size_t write_fully(int fd, std::string_view bytes, int& error);

// fsync of a directory, so a rename in it survives a crash. Error naming it.
void sync_directory(const std::filesystem::path& dir);

class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path target, mode_t mode = 0644);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends `bytes`; Error naming the target (and the bytes it holds) when the write fails.
  void write(std::string_view bytes);
  // The same without throwing: returns the bytes that reached the file, `error` = errno when
  // that is fewer than bytes.size().
  size_t append(std::string_view bytes, int& error);
  int64_t size() const { return size_; }  // bytes written so far
  // Cuts the temporary back to `size` bytes (after a failed write).
  void truncate(int64_t size);
  // Flushes to disk and renames over the target.
  void commit();
  // Flushes and keeps the temporary's content at `path` instead of the target (the target is
  // left as it was).
  void keep_as(const std::filesystem::path& path);

  const std::filesystem::path& target() const { return target_; }
  int descriptor() const { return fd_; }

 private:
  void flush_and_close();
  void move_to(const std::filesystem::path& path);

  std::filesystem::path target_;
  std::filesystem::path temporary_;
  int fd_ = -1;
  int64_t size_ = 0;
  bool done_ = false;
};

// `text` as the whole new content of `path`, through an AtomicFile.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace sift
