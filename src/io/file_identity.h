#pragma once
// Which file a path or descriptor is, by device and inode, so that a hard link, a symlink or
// "./x" and "x" all count as the same file. Used to refuse an output that is one of the
// command's inputs: opening it for writing would destroy what is about to be read.
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sift {

struct FileId {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const FileId&) const = default;
};

// nullopt when nothing exists at `path` (or it cannot be looked at).
std::optional<FileId> file_id(const std::filesystem::path& path);
std::optional<FileId> file_id_of_descriptor(int fd);

// An input the command reads, with the name its error messages give it.
struct NamedInput {
  std::filesystem::path path;
  std::string role;  // "--input", "the model's weights", ...
};

// Error when the regular file at `output` (when it exists) or the descriptor `output_fd`
// (>= 0: e.g. stdout redirected to a file) is one of `inputs`:
//   "out.jsonl: the output is the same file as --input rows.jsonl; refusing to overwrite what
//    the command reads"
void refuse_output_over_inputs(const std::filesystem::path& output, std::span<const NamedInput> inputs);
void refuse_descriptor_over_inputs(int output_fd, const std::string& output_name, std::span<const NamedInput> inputs);

// The files of a model directory that sift reads (io/labeler_files.h), each named for messages.
std::vector<NamedInput> model_directory_inputs(const std::filesystem::path& dir);

}  // namespace sift
