#include "io/file_identity.h"

#include <sys/stat.h>

#include "core/error.h"
#include "io/labeler_files.h"

namespace sift {
namespace {

void refuse(const std::optional<FileId>& output, const std::string& output_name, std::span<const NamedInput> inputs) {
  if (!output) return;
  for (const NamedInput& input : inputs) {
    if (file_id(input.path) == output)
      fail("{}: the output is the same file as {} {}; refusing to overwrite what the command reads", output_name,
           input.role, input.path.string());
  }
}

}  // namespace

std::optional<FileId> file_id(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return FileId{info.st_dev, info.st_ino};
}

std::optional<FileId> file_id_of_descriptor(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) return std::nullopt;
  return FileId{info.st_dev, info.st_ino};
}

void refuse_output_over_inputs(const std::filesystem::path& output, std::span<const NamedInput> inputs) {
  // Only a regular file is destroyed by writing it; a device or FIFO that is also read (a
  // terminal as --input /dev/stdin and --output /dev/stdout) is not.
  struct stat info {};
  if (::stat(output.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return;
  refuse(FileId{info.st_dev, info.st_ino}, output.string(), inputs);
}

void refuse_descriptor_over_inputs(int output_fd, const std::string& output_name, std::span<const NamedInput> inputs) {
  // Only a regular file can be an input too; a pipe or a terminal never is.
  struct stat info {};
  if (::fstat(output_fd, &info) != 0 || !S_ISREG(info.st_mode)) return;
  refuse(FileId{info.st_dev, info.st_ino}, output_name, inputs);
}

std::vector<NamedInput> model_directory_inputs(const std::filesystem::path& dir) {
  std::vector<NamedInput> inputs;
  std::error_code error;  // a directory that cannot be listed has no inputs to guard
  for (const std::filesystem::path& file : labeler_files(dir, error)) inputs.push_back({file, "the model directory's file"});
  return inputs;
}

}  // namespace sift
