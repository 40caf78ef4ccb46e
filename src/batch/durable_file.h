#pragma once
// Files written so that a crash (kill -9, power loss) leaves a state a resumed run can trust:
// an append-only file whose length is made durable by sync() and whose SHA-256 is kept as it
// grows (file_digest.h). Every failure (a full disk, a
// file-size limit, an I/O error) is an Error naming the file and the system's reason;
// nothing is retried or ignored. (Small files replaced atomically, OUT.progress: io/atomic_file.h.)
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "batch/file_digest.h"

namespace sift::batch {

class AppendFile {
 public:
  // A new file; an Error naming it and `role` (what it holds, for messages) if anything is
  // at `path` already: a file, or a symbolic link, never followed (io/own_file.h).
  static AppendFile create(const std::filesystem::path& path, std::string_view role);
  // An existing file as a checkpoint recorded it, in `record` (the progress file): opened (a
  // regular file, never through a symbolic link: io/own_file.h) and checked against the record
  // (FileDigest::resume: its length, the SHA-256 of its last partial MiB). An Error, with the
  // file left as it was, when it does not match. Nothing is cut yet: cut_to_checkpoint()
  // drops what a killed run wrote after the checkpoint, once every file of the job is checked.
  static AppendFile resume(const std::filesystem::path& path, std::string_view role, const FileCheckpoint& recorded,
                           const std::filesystem::path& record);
  void cut_to_checkpoint();  // after resume: back to the recorded length

  AppendFile(AppendFile&& other) noexcept;
  AppendFile& operator=(AppendFile&& other) noexcept;
  ~AppendFile();

  void append(std::string_view bytes);  // buffered
  void sync();                          // writes the buffer, then fsync: durable up to length()
  void clear();                         // empties the file
  int64_t length() const { return written_ + int64_t(buffer_.size()); }
  FileCheckpoint checkpoint() const { return digest_.checkpoint(); }  // of its length() bytes
  const std::filesystem::path& path() const { return path_; }

 private:
  AppendFile(std::filesystem::path path, int fd, int64_t length, FileDigest digest);
  void write_buffer();
  void truncate(int64_t length);  // cuts the file (after writing the buffer); the digest is the caller's

  std::filesystem::path path_;
  int fd_ = -1;
  int64_t written_ = 0;  // bytes in the file
  std::string buffer_;   // bytes not written yet
  FileDigest digest_;    // of the length() bytes
};

// fsync of the directory holding `path`, so a created or renamed entry survives a crash.
void sync_parent_directory(const std::filesystem::path& path);

}  // namespace sift::batch
