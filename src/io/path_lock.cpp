#include "io/path_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/file_identity.h"
#include "io/own_file.h"

namespace sift {
namespace {

// "pid: command line" of this process (arguments joined by spaces).
std::string holder_text() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string command = text.str();
  while (!command.empty() && command.back() == '\0') command.pop_back();
  std::replace(command.begin(), command.end(), '\0', ' ');
  if (command.size() > 400) command = command.substr(0, 400) + "...";
  return fmt::format("pid {}: {}", ::getpid(), command);
}

std::string read_holder(int fd) {
  char buffer[512];
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  std::string text(buffer, n > 0 ? static_cast<size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text.empty() ? "a process that has not yet said who it is" : text;
}

// A lock file sift made has one name: another is a file of someone's, whose bytes the lock
// would overwrite with its holder.
bool holds_other_names(int fd) {
  struct stat info {};
  return ::fstat(fd, &info) == 0 && info.st_nlink > 1;
}

}  // namespace

PathLock::PathLock(const std::filesystem::path& target) {
  // A device or FIFO is written directly, by any number of runs at once, and is no file a
  // run could leave half-written: nothing to lock (and no lock file in /dev).
  if (output_kind(target) == OutputKind::stream) return;
  // "dir/", "./dir" and "dir" are one path, and so is a symbolic link to it: the lock lives
  // beside the last component of the path the links lead to.
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::weakly_canonical(std::filesystem::absolute(target), error);
  if (error) absolute = std::filesystem::absolute(target).lexically_normal();
  if (absolute.filename().empty()) absolute = absolute.parent_path();
  lock_file_ = absolute.parent_path() / fmt::format(".{}.lock", absolute.filename().string());
  // A releasing holder removes the file: a lock taken on the removed inode is retried on the new one.
  for (int attempt = 0; attempt < 100; ++attempt) {
    fd_ = open_own_file(lock_file_, O_RDWR | O_CREAT, fmt::format("the lock file of {}", target.string()));
    if (holds_other_names(fd_)) {
      ::close(fd_);
      fd_ = -1;
      fail("{}: has other names (hard links) where sift keeps the lock file of {}: it is not one sift made; remove it",
           lock_file_.string(), target.string());
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const std::string holder = read_holder(fd_);
      ::close(fd_);
      fd_ = -1;
      if (error == EWOULDBLOCK)
        fail("{}: another run is writing it ({}); wait for it to finish (lock file {})", target.string(), holder,
             lock_file_.string());
      fail("{}: cannot lock {}: {}", target.string(), lock_file_.string(), std::strerror(error));
    }
    if (file_id_of_descriptor(fd_) == file_id(lock_file_)) {
      const std::string holder = holder_text() + "\n";
      int error = 0;
      if (::ftruncate(fd_, 0) == 0) write_fully(fd_, holder, error);
      return;
    }
    ::close(fd_);
    fd_ = -1;
  }
  fail("{}: cannot take the lock {}: it keeps being replaced", target.string(), lock_file_.string());
}

PathLock::~PathLock() {
  if (fd_ < 0) return;
  ::unlink(lock_file_.c_str());  // while still held: a waiter on this inode retries on a new file
  ::close(fd_);
}

}  // namespace sift
