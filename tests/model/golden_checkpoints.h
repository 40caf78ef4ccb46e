#pragma once
// The golden checkpoints written by tests/golden/make_golden.py (the CTest fixture
// "golden") into <build>/golden/<arch>_<dtype>/.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sift::testing {

inline std::filesystem::path golden_root() { return std::filesystem::path(SIFT_BINARY_DIR) / "golden"; }

inline std::vector<std::string> golden_cases() {
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
