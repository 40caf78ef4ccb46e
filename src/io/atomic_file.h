#pragma once
// AtomicFile: a file written whole or not at all, the one way sift writes a file (sift.json,
// tokenizer.json, model.safetensors, checkpoints, outputs). What happens depends on what the
// target is (output_kind below):
//  - absent, or a regular file: bytes go to a new temporary file beside it,
//    "<dir>/.<name>.tmp-<pid>-<random>" (own_file.h: a name nothing had, so nothing planted
//    there is written through), and commit() makes them the target in one step:
//      fsync(temporary); rename(temporary, target); fsync(directory)
//    so neither a reader, a crash, a kill nor a full disk ever sees a half-written target,
//    and the target is never truncated before the new content is complete. Destroyed
//    without commit(), the temporary is removed and the target is as it was. A symbolic
//    link is followed: the file it names is replaced, the link stays a link.
//  - a character or block device, a FIFO or a socket (/dev/null, /dev/stdout on a terminal
//    or a pipe, a named pipe): written directly, as a shell redirection writes it. Such a
//    node is never replaced (renaming a file over /dev/null would break it for every
//    process); its reader sees the bytes as they are written, and a failed run leaves what
//    it wrote there. Opening a FIFO waits for its reader, as `>` does.
//  - a directory: an Error naming it, before anything is written.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace sift {

// Writes all of `bytes` to `fd` (retrying short writes and EINTR). Returns the bytes written;
// `error` is errno when that is fewer than bytes.size(), else 0.
size_t write_fully(int fd, std::string_view bytes, int& error);

// What a path to be written is. Symbolic links are followed.
enum class OutputKind {
  absent,       // nothing there yet
  regular,      // a regular file: replaced through a temporary
  directory,    // never an output file
  stream,       // a device, FIFO or socket: written directly, never replaced
};
OutputKind output_kind(const std::filesystem::path& path);

// Creates the folder `dir` (and the folders above it) when missing: the output folder that
// `flag` names. An Error naming both when `dir` exists and is not a folder (a file, or a
// device such as /dev/null), before anything is written.
void create_output_directory(const std::filesystem::path& dir, std::string_view flag);

// fsync of a directory, so a rename in it survives a crash. Error naming it.
void sync_directory(const std::filesystem::path& dir);
// fsync of a file another library wrote (libtorch's archives). Error naming it.
void sync_file(const std::filesystem::path& path);

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
  // Cuts the temporary back to `size` bytes (after a failed write); not for a stream.
  void truncate(int64_t size);
  // Flushes to disk and renames over the target (a stream: closes it).
  void commit();
  // Flushes and keeps the temporary's content at `path` instead of the target (the target is
  // left as it was): renamed there, so a link or file found at `path` is replaced, never
  // written through; not for a stream.
  void keep_as(const std::filesystem::path& path);
  // The target is a stream (a device, FIFO or socket): bytes go straight to it.
  bool writes_directly() const { return temporary_.empty(); }

  const std::filesystem::path& target() const { return target_; }
  int descriptor() const { return fd_; }

 private:
  void flush_and_close();
  void move_to(const std::filesystem::path& path);

  std::filesystem::path target_;     // as given, for messages
  std::filesystem::path replaced_;   // the file renamed over (symbolic links followed)
  std::filesystem::path temporary_;  // empty: writing directly
  int fd_ = -1;
  int64_t size_ = 0;
  bool done_ = false;
};

// `text` as the whole new content of `path`, through an AtomicFile.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace sift
