#include "io/labeler_files.h"

#include <algorithm>

#include "core/error.h"

namespace sift {
namespace {

constexpr std::string_view kLabelerFiles =
    "config.json, model.safetensors (or model.safetensors.index.json and its shards), tokenizer.json and sift.json "
    "(docs/artifact.md)";

}  // namespace

bool is_labeler_file(std::string_view name) {
  return name == "config.json" || name == "tokenizer.json" || name == "sift.json" ||
         name == "model.safetensors.index.json" || name.ends_with(".safetensors");
}

std::vector<std::filesystem::path> labeler_files(const std::filesystem::path& dir, std::error_code& error) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    std::error_code not_regular;
    if (is_labeler_file(entry.path().filename().string()) && entry.is_regular_file(not_regular))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void check_model_directory(const std::filesystem::path& dir) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(dir, error);
  if (!std::filesystem::exists(status)) {
    if (error && error != std::errc::no_such_file_or_directory) fail("{}: {}", dir.string(), error.message());
    fail("{}: does not exist", dir.string());
  }
  if (!std::filesystem::is_directory(status))
    fail("{}: not a directory; a labeler is a directory holding {}", dir.string(), kLabelerFiles);
  if (labeler_files(dir, error).empty()) {
    if (error) fail("{}: cannot list it: {}", dir.string(), error.message());
    fail("{}: not a labeler directory: it holds none of {}", dir.string(), kLabelerFiles);
  }
}

}  // namespace sift
