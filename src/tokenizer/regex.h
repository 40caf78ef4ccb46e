#pragma once
// PCRE2 regex (UTF + UCP, JIT-compiled) standing in for the Oniguruma regexes of Hugging
// Face tokenizers (Split/Replace patterns and the ByteLevel pattern). Thread-safe: match
// scratch space is per thread.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sift {

using ByteRange = std::pair<size_t, size_t>;  // [first, second) byte offsets

class Regex {
 public:
  // `where` names the config location for the error message if the pattern is invalid.
  Regex(std::string_view pattern, const std::string& where);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // All non-overlapping matches, left to right, iterated like the onig crate's find_iter:
  // an empty match right at the end of the previous match is skipped by advancing one
  // character. `text` must be valid UTF-8. Appends to `matches`.
  void find_all(std::string_view text, std::vector<ByteRange>& matches) const;

 private:
  struct Compiled;
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace sift
