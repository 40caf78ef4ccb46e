#pragma once
// Golden files computed by a Node script over Hugging Face tokenizers (the npm binding), made
// on first use into a folder of the build tree and remade when the script or another input
// is newer than the folder's manifest.json. A file lock keeps concurrent test processes
// (ctest -j) from generating at the same time.
#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace sift::testing {

// Newest modification time of the inputs (files, or every file of a folder).
inline std::filesystem::file_time_type newest_input_time(const std::vector<std::filesystem::path>& inputs) {
  auto newest = std::filesystem::file_time_type::min();  // not {}: libstdc++'s file clock epoch is in 2174
  for (const auto& input : inputs) {
    if (std::filesystem::is_directory(input)) {
      for (const auto& entry : std::filesystem::directory_iterator(input)) newest = std::max(newest, entry.last_write_time());
    } else {
      newest = std::max(newest, std::filesystem::last_write_time(input));
    }
  }
  return newest;
}

// Runs `node SCRIPT OUT_DIR` unless OUT_DIR/manifest.json is newer than every input (the
// script is one). Returns an error message, empty on success.
inline std::string ensure_node_goldens(const std::filesystem::path& script, const std::filesystem::path& out_dir,
                                       std::vector<std::filesystem::path> inputs) {
  std::filesystem::create_directories(out_dir);
  const int lock = ::open((out_dir / ".lock").c_str(), O_CREAT | O_RDWR, 0644);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) return "cannot lock " + (out_dir / ".lock").string();
  inputs.push_back(script);
  std::string error;
  const auto manifest = out_dir / "manifest.json";
  if (!std::filesystem::exists(manifest) || std::filesystem::last_write_time(manifest) < newest_input_time(inputs)) {
    std::filesystem::remove(manifest);
    const std::string command = "node '" + script.string() + "' '" + out_dir.string() + "' > '" +
                                (out_dir / "generate.log").string() + "' 2>&1";
    if (std::system(command.c_str()) != 0 || !std::filesystem::exists(manifest)) {
      error = "generating the goldens failed (needs node and `npm ci`): see " + (out_dir / "generate.log").string();
    }
  }
  ::flock(lock, LOCK_UN);
  ::close(lock);
  return error;
}

}  // namespace sift::testing
