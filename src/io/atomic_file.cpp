#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "io/own_file.h"

namespace sift {

size_t write_fully(int fd, std::string_view bytes, int& error) {
  error = 0;
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    written += static_cast<size_t>(n);
  }
  return written;
}

void create_output_directory(const std::filesystem::path& dir, std::string_view flag) {
  const OutputKind kind = output_kind(dir);
  if (kind == OutputKind::regular || kind == OutputKind::stream)
    fail("{}: exists and is not a folder; {} names the folder to write into", dir.string(), flag);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) fail("{}: cannot create the folder ({}): {}", dir.string(), flag, error.message());
}

void sync_directory(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir.empty() ? std::filesystem::path(".") : dir;
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("{}: cannot open the directory to flush it: {}", path.string(), std::strerror(errno));
  const int status = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  // Some file systems cannot fsync a directory (EINVAL): the rename is then as durable as they make it.
  if (status != 0 && error != EINVAL) fail("{}: cannot flush the directory: {}", path.string(), std::strerror(error));
}

void sync_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("{}: cannot open to flush it: {}", path.string(), std::strerror(errno));
  const int status = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (status != 0) fail("{}: cannot flush to disk: {}", path.string(), std::strerror(error));
}

OutputKind output_kind(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return OutputKind::absent;  // (or unreachable: opening it says why)
  if (S_ISREG(info.st_mode)) return OutputKind::regular;
  if (S_ISDIR(info.st_mode)) return OutputKind::directory;
  return OutputKind::stream;
}

AtomicFile::AtomicFile(std::filesystem::path target, mode_t mode) : target_(std::move(target)), replaced_(target_) {
  const OutputKind kind = output_kind(target_);
  if (kind == OutputKind::directory) fail("{}: is a directory; the output must name a file", target_.string());
  if (kind == OutputKind::stream) {
    fd_ = ::open(target_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) fail("{}: cannot open for writing: {}", target_.string(), std::strerror(errno));
    return;
  }
  std::error_code error;
  if (kind == OutputKind::regular) {
    const std::filesystem::path resolved = std::filesystem::canonical(target_, error);  // a link stays a link
    if (!error) replaced_ = resolved;
  }
  TemporaryFile temporary = create_temporary_beside(replaced_, mode);
  temporary_ = std::move(temporary.path);
  fd_ = temporary.fd;
  struct stat existing {};
  if (::stat(replaced_.c_str(), &existing) == 0) ::fchmod(fd_, existing.st_mode & 07777);  // a replacement keeps the mode
}

AtomicFile::~AtomicFile() {
  if (done_) return;
  if (fd_ >= 0) ::close(fd_);
  if (!writes_directly()) ::unlink(temporary_.c_str());
}

size_t AtomicFile::append(std::string_view bytes, int& error) {
  const size_t n = write_fully(fd_, bytes, error);
  size_ += static_cast<int64_t>(n);
  return n;
}

void AtomicFile::write(std::string_view bytes) {
  int error = 0;
  append(bytes, error);
  if (error != 0) fail("{}: write failed after {} bytes: {}", target_.string(), size_, std::strerror(error));
}

void AtomicFile::truncate(int64_t size) {
  if (writes_directly()) fail("{}: is not a regular file: what was written to it cannot be cut back", target_.string());
  if (::ftruncate(fd_, size) != 0 || ::lseek(fd_, size, SEEK_SET) < 0)
    fail("{}: cannot cut the output back to {} bytes: {}", target_.string(), size, std::strerror(errno));
  size_ = size;
}

void AtomicFile::flush_and_close() {
  const int status = ::fsync(fd_);
  const int error = errno;
  ::close(fd_);
  fd_ = -1;
  if (status != 0) fail("{}: cannot flush to disk: {}", target_.string(), std::strerror(error));
}

void AtomicFile::move_to(const std::filesystem::path& path) {
  if (::rename(temporary_.c_str(), path.c_str()) != 0)
    fail("{}: cannot rename {} over it: {}", path.string(), temporary_.string(), std::strerror(errno));
  done_ = true;
  sync_directory(path.parent_path());
}

void AtomicFile::commit() {
  if (writes_directly()) {  // a device or FIFO: nothing to flush to disk, nothing to rename
    const int status = ::close(fd_);
    fd_ = -1;
    done_ = true;
    if (status != 0) fail("{}: write failed: {}", target_.string(), std::strerror(errno));
    return;
  }
  flush_and_close();
  move_to(replaced_);
}

void AtomicFile::keep_as(const std::filesystem::path& path) {
  if (writes_directly()) fail("{}: is not a regular file: what was written went to it directly", target_.string());
  flush_and_close();
  move_to(path);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  AtomicFile file(path);
  file.write(text);
  file.commit();
}

}  // namespace sift
