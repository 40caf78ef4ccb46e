#pragma once
// The added vocabulary of tokenizer.json ("added_tokens"): tokens matched in the text before
// the model runs, reproducing Hugging Face tokenizers' tokenizer/added_vocabulary.rs.
//  - Matching is leftmost-longest over the contents, non-overlapping (an Aho-Corasick
//    LeftmostLongest scan in HF). Tokens with normalized=false are matched in the raw text,
//    those with normalized=true in each normalized piece against their normalized content.
//  - single_word: a match touching a word character (Rust regex \w) on either side is
//    ignored. lstrip / rstrip: the match swallows the whitespace before / after it.
//  - SpecialText::AsPlainText skips matches of special tokens (HF encode_special_tokens):
//    they stay in the text and are tokenized like any text; non-special added tokens are
//    still recognised. With special spans (EncodeOptions::special_spans), a special match is
//    kept only when it lies wholly inside one span, and skipped the same way otherwise.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tokenizer/normalizers.h"
#include "tokenizer/string_map.h"
#include "tokenizer/tokenizer.h"

namespace sift {

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool special = false;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = true;
};

// A piece of text: [start, end) bytes, and the added token it is, or -1 for plain text.
struct TextSegment {
  size_t start = 0, end = 0;
  int32_t added_id = -1;
};

class AddedVocabulary {
 public:
  // `normalizer` (may be null) gives the normalized contents of normalized tokens.
  AddedVocabulary(const nlohmann::json& added_tokens, const Normalizer* normalizer, const std::string& where);

  enum class Stage { Raw, Normalized };  // which tokens to match: normalized=false or true
  // Splits `text` into plain segments and added tokens; covers all of `text` except
  // whitespace swallowed by lstrip/rstrip. Empty plain segments are left out.
  void split(std::string_view text, Stage stage, SpecialText special_text, std::span<const TextSpan> special_spans,
             std::vector<TextSegment>& out) const;

  std::optional<int32_t> token_to_id(std::string_view content) const;
  const AddedToken* find(int32_t id) const;
  bool empty() const { return tokens_.empty(); }
  std::vector<int32_t> ids() const;  // each distinct id once

 private:
  // The tokens matched at one stage, with for each first byte the candidates, longest first.
  struct MatchSet {
    std::vector<std::string> patterns;
    std::vector<size_t> token_index;  // into tokens_, per pattern
    std::array<std::vector<size_t>, 256> by_first_byte;
  };
  void build_match_set(MatchSet& set, bool normalized, const Normalizer* normalizer);
  // The leftmost-longest match at or after `from`: (start, pattern index), or nullopt.
  std::optional<std::pair<size_t, size_t>> find_next(const MatchSet& set, std::string_view text, size_t from) const;

  std::vector<AddedToken> tokens_;
  StringMap<int32_t> id_by_content_;
  std::unordered_map<int32_t, size_t> index_by_id_;
  MatchSet raw_, normalized_;
};

}  // namespace sift
