#pragma once
// `sift batch` never writes over what it reads: OUT (and its side files OUT.progress,
// OUT.progress.tail) must not be the same file (device and inode, so links and other
// spellings of a path count) as the input, a shard being merged, or a file of the labeler.
// Each must be absent or a regular file: a job is resumed by cutting OUT back to its last
// checkpoint, which a device or FIFO (/dev/null, a named pipe) cannot be; they are refused
// before anything is read or written.
#include <filesystem>
#include <vector>

namespace sift::batch {

// An Error naming the file when OUT or a side file of it is one of `protected_files`, a
// directory, or neither absent nor a regular file.
void check_output_paths(const std::filesystem::path& output, const std::vector<std::filesystem::path>& protected_files);

// The regular files of a model directory (all of them: weights, config, tokenizer, sift.json).
std::vector<std::filesystem::path> model_files(const std::filesystem::path& model_dir);

}  // namespace sift::batch
