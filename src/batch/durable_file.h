#pragma once
// Files written so that a crash (kill -9, power loss) leaves a state a resumed run can trust:
// an append-only file whose length is made durable by sync() and whose SHA-256 is kept as it
// grows (file_digest.h), and small files replaced atomically. Every failure (a full disk, a
// file-size limit, an I/O error) is an Error naming the file and the system's reason;
// nothing is retried or ignored.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "batch/file_digest.h"

namespace sift::batch {

class AppendFile {
 public:
  // A new file; an Error if `path` exists.
  static AppendFile create(const std::filesystem::path& path);
  // An existing file as a checkpoint recorded it, in `record` (the progress file): checked
  // against the record first (FileDigest::resume: its length, the SHA-256 of its last
  // partial MiB), then cut back to recorded.bytes (dropping what a killed run wrote after the
  // checkpoint). An Error, with the file left as it was, when it does not match.
  static AppendFile resume(const std::filesystem::path& path, const FileCheckpoint& recorded,
                           const std::filesystem::path& record);

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

// Replaces `path` with `contents` atomically: written to path + ".tmp", fsynced, renamed over
// `path`, and the directory fsynced. A crash leaves the old file or the new one, whole.
void replace_file_atomically(const std::filesystem::path& path, std::string_view contents);

// fsync of the directory holding `path`, so a created or renamed entry survives a crash.
void sync_parent_directory(const std::filesystem::path& path);

}  // namespace sift::batch
