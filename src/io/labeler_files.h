#pragma once
// The files a labeler directory is made of, listed once for every command that reads, guards
// or fingerprints one: config.json, tokenizer.json, sift.json and the weights (*.safetensors,
// model.safetensors.index.json). Other files there (a README, calibration/) are not part of it.
#include <filesystem>
#include <string_view>
#include <system_error>
#include <vector>

namespace sift {

bool is_labeler_file(std::string_view name);

// The first check of every loader of a model or labeler directory: an Error unless `dir` is a
// directory holding at least one of the files above, saying which it is not:
//   "<dir>: does not exist"
//   "<dir>: not a directory; a labeler is a directory holding config.json, ..."
//   "<dir>: not a labeler directory: it holds none of config.json, ..."
// (what a directory holding some of them lacks, each loader names: no tokenizer.json, ...).
void check_model_directory(const std::filesystem::path& dir);

// The labeler files in `dir` that are regular files, in name order; a directory that cannot be
// listed sets `error` (and gives the files listed until then).
std::vector<std::filesystem::path> labeler_files(const std::filesystem::path& dir, std::error_code& error);

}  // namespace sift
