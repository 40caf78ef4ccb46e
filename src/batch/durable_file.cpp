#include "batch/durable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "io/own_file.h"

namespace sift::batch {
namespace {

constexpr size_t kWriteBufferBytes = size_t(1) << 20;

[[noreturn]] void fail_io(const std::filesystem::path& path, std::string_view what) {
  fail("{}: cannot {}: {}", path.string(), what, std::strerror(errno));
}

void write_all(int fd, std::string_view bytes, const std::filesystem::path& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_io(path, "write");
    bytes.remove_prefix(size_t(n));
  }
}

void fsync_or_fail(int fd, const std::filesystem::path& path) {
  if (::fsync(fd) != 0) fail_io(path, "sync to disk");
}

}  // namespace

AppendFile::AppendFile(std::filesystem::path path, int fd, int64_t length, FileDigest digest)
    : path_(std::move(path)), fd_(fd), written_(length), digest_(std::move(digest)) {}

AppendFile AppendFile::create(const std::filesystem::path& path, std::string_view role) {
  return AppendFile(path, open_own_file(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, role), 0, FileDigest());
}

AppendFile AppendFile::resume(const std::filesystem::path& path, std::string_view role, const FileCheckpoint& recorded,
                              const std::filesystem::path& record) {
  const int fd = open_own_file(path, O_WRONLY | O_APPEND, role);
  struct stat info{};
  if (::fstat(fd, &info) != 0) {
    ::close(fd);
    fail_io(path, "stat");
  }
  AppendFile file(path, fd, info.st_size, FileDigest());
  file.digest_ = FileDigest::resume(path, recorded, record);  // an Error closes fd with `file`
  return file;
}

void AppendFile::cut_to_checkpoint() { truncate(digest_.bytes()); }

AppendFile::AppendFile(AppendFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(other.fd_),
      written_(other.written_),
      buffer_(std::move(other.buffer_)),
      digest_(std::move(other.digest_)) {
  other.fd_ = -1;
}

AppendFile& AppendFile::operator=(AppendFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    written_ = other.written_;
    buffer_ = std::move(other.buffer_);
    digest_ = std::move(other.digest_);
    other.fd_ = -1;
  }
  return *this;
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) ::close(fd_);  // unsynced bytes are left to the OS: only sync() promises anything
}

void AppendFile::append(std::string_view bytes) {
  digest_.add(bytes);
  buffer_.append(bytes);
  if (buffer_.size() >= kWriteBufferBytes) write_buffer();
}

void AppendFile::write_buffer() {
  write_all(fd_, buffer_, path_);
  written_ += int64_t(buffer_.size());
  buffer_.clear();
}

void AppendFile::sync() {
  write_buffer();
  fsync_or_fail(fd_, path_);
}

void AppendFile::truncate(int64_t length) {
  write_buffer();
  if (::ftruncate(fd_, length) != 0) fail_io(path_, "truncate");
  written_ = length;
}

void AppendFile::clear() {
  truncate(0);
  digest_ = FileDigest();
}

void sync_parent_directory(const std::filesystem::path& path) {
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail_io(dir, "open the directory");
  const int status = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  errno = error;
  if (status != 0) fail_io(dir, "sync the directory");
}

}  // namespace sift::batch
