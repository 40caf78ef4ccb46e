#pragma once
// The one way sift opens a file of its own that it writes beside an output: a lock file, a
// temporary renamed over the output, a progress or tail file. Such a name is in a folder other
// people may write to, so whatever is found there was perhaps planted: a symbolic link to the
// input (or any file the user can write), a FIFO, a directory. It is never followed, opened or
// truncated: the file is opened with O_NOFOLLOW, must be a regular file, and anything else is
// an Error naming it (and `role`, what sift keeps there), before a byte is written.
#include <sys/types.h>

#include <filesystem>
#include <string_view>

namespace sift {

// Opens `path` with `flags` (O_RDWR, O_WRONLY, O_CREAT, O_EXCL, O_APPEND...; O_NOFOLLOW and
// O_CLOEXEC are added; a created file gets `mode` less the umask) and returns the descriptor.
// An Error naming `path` and `role` ("the lock file of out.jsonl") when it is a symbolic link
// or is not a regular file, or cannot be opened (the system's reason).
int open_own_file(const std::filesystem::path& path, int flags, std::string_view role, mode_t mode = 0644);

// A new file beside `target`, "<dir>/.<name>.tmp-<pid>-<random>", opened for writing: a name
// nothing had (O_EXCL), so no planted file or link is ever in the way or written through.
struct TemporaryFile {
  std::filesystem::path path;
  int fd = -1;
};
TemporaryFile create_temporary_beside(const std::filesystem::path& target, mode_t mode = 0644);

}  // namespace sift
