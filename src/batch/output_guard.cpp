#include "batch/output_guard.h"

#include <optional>
#include <utility>

#include "batch/batch_output.h"
#include "batch/progress_file.h"
#include "core/error.h"
#include "io/atomic_file.h"
#include "io/file_identity.h"

namespace sift::batch {

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
    switch (output_kind(path)) {
      case OutputKind::absent: continue;
      case OutputKind::regular: break;
      case OutputKind::directory: fail("{}: is a directory; --output names a file", path.string());
      case OutputKind::stream:
        fail("{}: is not a regular file (a device, FIFO or socket): sift batch writes OUT as a file it can cut back "
             "to a checkpoint and resume, with OUT.progress beside it; to stream rows to a pipe, use sift score",
             path.string());
    }
    const std::optional<FileId> id = file_id(path);
    for (const auto& [protected_id, file] : protected_ids)
      if (id == protected_id)
        fail("{}: is the same file as {}, which sift batch reads; it never writes over it (choose another --output)",
             path.string(), file.string());
  }
}

}  // namespace sift::batch
