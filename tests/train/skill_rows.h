#pragma once
// JSONL training rows in the synth format for `sift train` tests: a profile listing some
// skills; an item (a skill) is supported, label 1, when the profile lists it.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace sift::train::testing {

inline void write_skill_rows(const std::filesystem::path& path, int n_rows, uint32_t seed, int n_items = 3) {
  static const std::vector<std::string> skills = {"Python", "Spark", "Kubernetes", "Welding", "Excel", "Java"};
  std::mt19937 rng(seed);
  std::ofstream out(path);
  for (int r = 0; r < n_rows; ++r) {
    std::vector<std::string> held;
    for (const std::string& s : skills)
      if (rng() % 2) held.push_back(s);
    std::string query = "Skills:";
    for (const std::string& s : held) query += " " + s;
    nlohmann::json items = nlohmann::json::array(), labels = nlohmann::json::array();
    for (int i = 0; i < n_items; ++i) {
      const std::string& s = skills[rng() % skills.size()];
      items.push_back({{"id", s}, {"text", s}});
      labels.push_back(std::find(held.begin(), held.end(), s) != held.end() ? 1 : 0);
    }
    out << nlohmann::json{{"id", r}, {"query", query}, {"items", items}, {"labels", labels}, {"truth", labels}}.dump()
        << "\n";
  }
}

}  // namespace sift::train::testing
