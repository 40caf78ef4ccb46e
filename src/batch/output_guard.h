#pragma once
// `sift batch` never writes over what it reads: OUT (and its side files OUT.progress,
// OUT.progress.tail) must not be the same file (device and inode, so links and other
// spellings of a path count) as the input, a shard being merged, or a file of the labeler.
#include <filesystem>
#include <vector>

namespace sift::batch {

// An Error naming the file when OUT or a side file of it is one of `protected_files`.
void check_output_paths(const std::filesystem::path& output, const std::vector<std::filesystem::path>& protected_files);

// The regular files of a model directory (all of them: weights, config, tokenizer, sift.json).
std::vector<std::filesystem::path> model_files(const std::filesystem::path& model_dir);

}  // namespace sift::batch
