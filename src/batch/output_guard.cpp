#include "batch/output_guard.h"

#include <sys/stat.h>

#include <optional>
#include <utility>

#include "batch/batch_output.h"
#include "batch/progress_file.h"
#include "core/error.h"

namespace sift::batch {
namespace {

using FileId = std::pair<dev_t, ino_t>;

std::optional<FileId> file_id(const std::filesystem::path& path) {
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return FileId{info.st_dev, info.st_ino};
}

}  // namespace

std::vector<std::filesystem::path> model_files(const std::filesystem::path& model_dir) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(model_dir, error))
    if (entry.is_regular_file(error)) files.push_back(entry.path());
  return files;
}

void check_output_paths(const std::filesystem::path& output, const std::vector<std::filesystem::path>& protected_files) {
  std::vector<std::pair<FileId, std::filesystem::path>> protected_ids;
  for (const std::filesystem::path& file : protected_files)
    if (auto id = file_id(file)) protected_ids.push_back({*id, file});
  for (const std::filesystem::path& path : {output, progress_file_path(output), tail_file_path(output)}) {
    const std::optional<FileId> id = file_id(path);
    if (!id) continue;
    for (const auto& [protected_id, file] : protected_ids)
      if (*id == protected_id)
        fail("{}: is the same file as {}, which sift batch reads; it never writes over it (choose another --output)",
             path.string(), file.string());
  }
}

}  // namespace sift::batch
