#pragma once
// The golden checkpoints written by tests/golden/make_golden.py (the CTest fixture
// "golden") into <build>/golden/<arch>_<dtype>/.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sift::testing {

inline std::filesystem::path golden_root() { return std::filesystem::path(SIFT_BINARY_DIR) / "golden"; }

// The checkpoints make_golden.py writes. A fixed list, not a directory listing: CTest
// registers the parameterised tests when the program is built, before the fixture has
// written anything, so a listing would register none of them on a clean build.
inline std::vector<std::string> golden_cases() {
  return {"llama_bf16", "llama_f32", "qwen2_bf16", "qwen2_f32", "qwen3_bf16", "qwen3_f16", "qwen3_f32"};
}

// What is actually on disk (checkpoints with a golden.json), sorted.
inline std::vector<std::string> golden_cases_on_disk() {
  std::vector<std::string> cases;
  if (std::filesystem::is_directory(golden_root()))
    for (const auto& entry : std::filesystem::directory_iterator(golden_root()))
      if (std::filesystem::exists(entry.path() / "golden.json")) cases.push_back(entry.path().filename().string());
  std::sort(cases.begin(), cases.end());
  return cases;
}

inline nlohmann::json read_golden(const std::string& name) {
  std::ifstream in(golden_root() / name / "golden.json");
  return nlohmann::json::parse(in);
}

}  // namespace sift::testing
