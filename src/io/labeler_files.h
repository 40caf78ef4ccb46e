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

// The labeler files in `dir` that are regular files, in name order; a directory that cannot be
// listed sets `error` (and gives the files listed until then).
std::vector<std::filesystem::path> labeler_files(const std::filesystem::path& dir, std::error_code& error);

}  // namespace sift
