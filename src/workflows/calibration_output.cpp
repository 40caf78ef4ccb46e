#include "workflows/calibration_output.h"

#include <unistd.h>

#include <memory>

#include "core/error.h"
#include "io/atomic_file.h"
#include "workflows/pr_curve_files.h"

namespace sift {
namespace {

namespace fs = std::filesystem;

// A folder removed at the end of its scope unless released.
class TemporaryFolder {
 public:
  explicit TemporaryFolder(fs::path path) : path_(std::move(path)) {
    std::error_code error;
    fs::remove_all(path_, error);
    fs::create_directories(path_);
  }
  ~TemporaryFolder() {
    std::error_code error;
    if (!released_) fs::remove_all(path_, error);
  }
  const fs::path& path() const { return path_; }
  void release() { released_ = true; }

 private:
  fs::path path_;
  bool released_ = false;
};

fs::path temporary_beside(const fs::path& target, std::string_view what) {
  const fs::path name = target.filename().empty() ? target.parent_path().filename() : target.filename();
  const fs::path dir = target.filename().empty() ? target.parent_path().parent_path() : target.parent_path();
  return dir / fmt::format(".{}.{}-{}", name.string(), what, ::getpid());
}

// Draws the curve files into a temporary folder inside `curve_dir` (created if missing).
std::unique_ptr<TemporaryFolder> draw_curves(const fs::path& curve_dir, const CalibrationCurves& curves) {
  create_output_directory(curve_dir, "--out-dir");
  auto drawn = std::make_unique<TemporaryFolder>(curve_dir / fmt::format(".drawing-{}", ::getpid()));
  write_calibration_files(drawn->path(), curves.curve, curves.chosen, curves.histogram, curves.title);
  return drawn;
}

// Moves the drawn files over those in `curve_dir`, each in one rename.
void move_curves(const TemporaryFolder& drawn, const fs::path& curve_dir) {
  for (const char* name : kCalibrationFiles) fs::rename(drawn.path() / name, curve_dir / name);
  sync_directory(curve_dir);
}

// `from`'s files into `to`, recursively: hard links (else copies) of the files themselves. A
// symbolic link gives the file it leads to (a labeler of `sift init --out` links to its model's
// files; a Hub snapshot's links are relative, ../../blobs/<etag>, and would lead nowhere from the
// copy); a link to a folder stays a link.
void copy_files_following_links(const fs::path& from, const fs::path& to, bool hard_links, std::error_code& error) {
  fs::create_directories(to, error);
  for (fs::directory_iterator it(from, error), end; !error && it != end; it.increment(error)) {
    const fs::path source = it->path(), target = to / source.filename();
    if (it->is_symlink(error) && it->is_directory(error))
      fs::copy_symlink(source, target, error);
    else if (it->is_directory(error))
      copy_files_following_links(source, target, hard_links, error);
    else if (hard_links)
      fs::create_hard_link(fs::canonical(source, error), target, error);
    else
      fs::copy_file(source, target, error);  // follows a link
    if (error) return;
  }
}

// DIR's files into `copy`: hard links where the file system allows, else copies.
void copy_model_directory(const fs::path& model_dir, const fs::path& copy) {
  std::error_code error;
  copy_files_following_links(model_dir, copy, /*hard_links=*/true, error);
  if (!error) return;
  fs::remove_all(copy, error);
  copy_files_following_links(model_dir, copy, /*hard_links=*/false, error);
  if (error) fail("{}: cannot copy it to {}: {}", model_dir.string(), copy.string(), error.message());
}

}  // namespace

void check_calibration_destinations(const std::optional<fs::path>& new_dir, const std::optional<fs::path>& curve_dir) {
  if (new_dir && fs::exists(*new_dir))
    fail("{}: already exists; --out needs a new folder (or use --in-place)", new_dir->string());
  const OutputKind curves = curve_dir ? output_kind(*curve_dir) : OutputKind::absent;
  if (curves == OutputKind::regular || curves == OutputKind::stream)
    fail("{}: exists and is not a folder; --out-dir names the folder for the curve files", curve_dir->string());
}

WrittenCalibration write_calibration_in_place(const fs::path& model_dir, const ArtifactUpdate& update,
                                              const CalibrationCurves& curves,
                                              const std::optional<fs::path>& curve_dir) {
  const fs::path curves_to = curve_dir.value_or(model_dir / "calibration");
  const std::unique_ptr<TemporaryFolder> drawn = draw_curves(curves_to, curves);
  write_file_atomically(model_dir / "sift.json", update.text);
  move_curves(*drawn, curves_to);
  return {model_dir / "sift.json", curves_to};
}

void write_calibration_curves(const fs::path& curve_dir, const CalibrationCurves& curves) {
  const std::unique_ptr<TemporaryFolder> drawn = draw_curves(curve_dir, curves);
  move_curves(*drawn, curve_dir);
}

WrittenCalibration write_calibrated_copy(const fs::path& model_dir, const fs::path& new_dir, const ArtifactUpdate& update,
                                         const CalibrationCurves& curves, const std::optional<fs::path>& curve_dir) {
  check_calibration_destinations(new_dir, curve_dir);
  TemporaryFolder copy(temporary_beside(new_dir, "copy"));
  copy_model_directory(model_dir, copy.path());
  write_file_atomically(copy.path() / "sift.json", update.text);
  const fs::path curves_in_copy = curve_dir ? *curve_dir : copy.path() / "calibration";
  std::unique_ptr<TemporaryFolder> drawn = draw_curves(curves_in_copy, curves);
  move_curves(*drawn, curves_in_copy);
  drawn.reset();  // its folder goes before the copy is renamed
  if (fs::exists(new_dir)) fail("{}: appeared while calibrating; nothing was written there", new_dir.string());
  fs::rename(copy.path(), new_dir);
  copy.release();
  sync_directory(new_dir.parent_path());
  return {new_dir / "sift.json", curve_dir ? *curve_dir : new_dir / "calibration"};
}

}  // namespace sift
