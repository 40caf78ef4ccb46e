#pragma once
// Finds where a text states catalog qualifications: every surface form (name, alias, job
// title) matched as a whole token sequence with the same characters between its tokens
// (so "Visual Studio · Code Review" is not "Visual Studio Code"), case-insensitively,
// leftmost-longest and non-overlapping: "Spark AR" is a mention of Spark AR, not of Apache
// Spark ("Spark"), and "JavaScript" never mentions Java. The generator's tests use it to check that a profile's text says exactly
// what its evidence records claim, nothing more.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sift::synth {

class Catalog;

struct Mention {
  int qualification;
  size_t first_token;
  size_t n_tokens;
};

class MentionScanner {
 public:
  explicit MentionScanner(const Catalog& catalog);
  std::vector<Mention> scan(std::string_view text) const;

 private:
  struct Form {
    std::vector<std::string> tokens;
    std::vector<std::string> gaps;  // gaps[i]: the characters between tokens i and i+1
    int qualification;
  };
  // First token -> forms starting with it, longest first.
  std::unordered_map<std::string, std::vector<Form>> forms_by_first_token_;
};

}  // namespace sift::synth
