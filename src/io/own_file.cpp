#include "io/own_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "core/error.h"

namespace sift {
namespace {

// Why `path` is no file sift may write as its own, from what lstat says is there; empty when
// it is a regular file (or nothing).
std::string not_own_file(const std::filesystem::path& path, std::string_view role) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return {};
  if (S_ISLNK(info.st_mode))
    return fmt::format("{}: is a symbolic link where sift keeps {}; sift never writes through a link beside an "
                       "output (it could lead to any file): remove it",
                       path.string(), role);
  return fmt::format("{}: is not a regular file (a {}) where sift keeps {}: remove it", path.string(),
                     S_ISDIR(info.st_mode) ? "directory" : S_ISFIFO(info.st_mode) ? "FIFO" : "device or socket", role);
}

}  // namespace

int open_own_file(const std::filesystem::path& path, int flags, std::string_view role, mode_t mode) {
  // O_NONBLOCK: a FIFO is refused at once instead of waiting for a reader.
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
  if (fd < 0) {
    const int error = errno;
    const std::string why = not_own_file(path, role);
    if (!why.empty()) fail("{}", why);
    fail("{}: cannot open {}: {}", path.string(), role, std::strerror(error));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    const std::string why = not_own_file(path, role);
    fail("{}", why.empty() ? fmt::format("{}: is not a regular file where sift keeps {}", path.string(), role) : why);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

TemporaryFile create_temporary_beside(const std::filesystem::path& target, mode_t mode) {
  thread_local std::mt19937_64 random{std::random_device{}()};
  for (int attempt = 0;; ++attempt) {
    TemporaryFile file;
    file.path = target.parent_path() /
                fmt::format(".{}.tmp-{}-{:016x}", target.filename().string(), ::getpid(), uint64_t(random()));
    file.fd = ::open(file.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (file.fd >= 0) return file;
    if (errno != EEXIST || attempt == 100)  // 100 names taken in a row: something makes them on purpose
      fail("{}: cannot create a file beside it to write into ({}): {}", target.string(), file.path.string(),
           std::strerror(errno));
  }
}

}  // namespace sift
