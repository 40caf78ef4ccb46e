#include "io/labeler_files.h"

#include <algorithm>

namespace sift {

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

}  // namespace sift
