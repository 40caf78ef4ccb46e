#pragma once
// PathLock: an exclusive lock on a path that is about to be written (an output file, a
// labeler directory being calibrated), so two runs never write it at once. It is flock() on
// "<dir>/.<name>.lock", a file that records the holder's pid and command line; a second run
// fails at once, naming the holder:
//   "out.jsonl: another run is writing it (pid 1234: sift score --output out.jsonl ...)"
// The kernel drops the lock when its holder exits, even after kill -9, so a stale lock file
// never blocks anyone; a released lock's file is removed. Symbolic links to the target are
// followed (two names of one file take one lock); the lock file itself is never a link or
// anything but a regular file of one name (own_file.h): a link, FIFO, directory or hard link
// planted at its name is an Error naming it, and nothing it leads to is opened or truncated.
// A device, FIFO or socket (/dev/null, a named pipe) is not locked: it is written directly
// (atomic_file.h), several runs may share it as they share a terminal, and no lock file is
// made beside it (none in /dev).
#include <filesystem>

namespace sift {

class PathLock {
 public:
  explicit PathLock(const std::filesystem::path& target);
  ~PathLock();
  PathLock(const PathLock&) = delete;
  PathLock& operator=(const PathLock&) = delete;

  const std::filesystem::path& lock_file() const { return lock_file_; }  // empty: nothing locked

 private:
  std::filesystem::path lock_file_;
  int fd_ = -1;
};

}  // namespace sift
