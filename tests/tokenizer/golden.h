#pragma once
// Golden files for the tokenizer parity test: generated on first use by
// tools/tokenizer_reference.js (Hugging Face tokenizers through its Node binding) into
// <build>/tokenizer_golden, and regenerated when the script or tests/tokenizer/data changes.
// A file lock keeps concurrent test processes (ctest -j) from generating at the same time.
#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace sift::testing {

inline std::filesystem::path golden_dir() { return std::filesystem::path(SIFT_BINARY_DIR) / "tokenizer_golden"; }

// Newest modification time of the inputs the goldens depend on.
inline std::filesystem::file_time_type golden_inputs_time() {
  const std::filesystem::path source(SIFT_SOURCE_DIR);
  auto newest = std::filesystem::last_write_time(source / "tools/tokenizer_reference.js");
  for (const auto& entry : std::filesystem::directory_iterator(source / "tests/tokenizer/data")) {
    newest = std::max(newest, entry.last_write_time());
  }
  return newest;
}

// Makes sure the goldens exist and are current; returns an error message, empty on success.
inline std::string ensure_goldens() {
  const auto dir = golden_dir();
  std::filesystem::create_directories(dir);
  const int lock = ::open((dir / ".lock").c_str(), O_CREAT | O_RDWR, 0644);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) return "cannot lock " + (dir / ".lock").string();
  std::string error;
  const auto manifest = dir / "manifest.json";
  if (!std::filesystem::exists(manifest) || std::filesystem::last_write_time(manifest) < golden_inputs_time()) {
    std::filesystem::remove(manifest);
    const std::string command = "node '" + std::string(SIFT_SOURCE_DIR) + "/tools/tokenizer_reference.js' '" +
                                dir.string() + "' > '" + (dir / "generate.log").string() + "' 2>&1";
    if (std::system(command.c_str()) != 0 || !std::filesystem::exists(manifest)) {
      error = "generating the goldens failed (needs node and `npm ci`): see " + (dir / "generate.log").string();
    }
  }
  ::flock(lock, LOCK_UN);
  ::close(lock);
  return error;
}

}  // namespace sift::testing
