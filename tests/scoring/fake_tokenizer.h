#pragma once
// A tiny deterministic Tokenizer for unit tests of prompt building, independent of the real
// tokenizer.json implementation:
//   - special tokens (recognised only with SpecialText::Recognise, and only inside the
//     special spans when some are given): <|im_start|> = 1, <|im_end|> = 2
//   - words "YES" = 3, "NO" = 4 (longest match at any point), every other byte = byte + 16
//   - BOS = 0, added in front when add_special_tokens and with_bos.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace sift::testing {

class FakeTokenizer : public Tokenizer {
 public:
  explicit FakeTokenizer(bool with_bos = true) : with_bos_(with_bos) {}

  std::vector<int32_t> encode(std::string_view text, const EncodeOptions& options = {}) const override {
    std::vector<int32_t> ids;
    if (options.add_special_tokens && with_bos_) ids.push_back(0);
    size_t at = 0;
    while (at < text.size()) {
      bool matched = false;
      for (const auto& [piece, id] : pieces()) {
        const bool special = id <= 2;
        if (special && !special_allowed(options, at, at + piece.size())) continue;
        if (text.substr(at, piece.size()) == piece) {
          ids.push_back(id);
          at += piece.size();
          matched = true;
          break;
        }
      }
      if (!matched) ids.push_back(static_cast<unsigned char>(text[at++]) + 16);
    }
    return ids;
  }
  std::vector<std::vector<int32_t>> encode_batch(const std::vector<std::string>& texts,
                                                 const EncodeOptions& options = {}) const override {
    std::vector<std::vector<int32_t>> out;
    for (const std::string& text : texts) out.push_back(encode(text, options));
    return out;
  }
  std::string decode(const std::vector<int32_t>& ids, bool skip_special_tokens = false) const override {
    std::string text;
    for (int32_t id : ids) {
      if (id >= 16) text += static_cast<char>(id - 16);
      else if (id == 3) text += "YES";
      else if (id == 4) text += "NO";
      else if (!skip_special_tokens && id == 1) text += "<|im_start|>";
      else if (!skip_special_tokens && id == 2) text += "<|im_end|>";
    }
    return text;
  }
  std::optional<int32_t> token_to_id(std::string_view token) const override {
    for (const auto& [piece, id] : pieces())
      if (piece == token) return id;
    return std::nullopt;
  }
  std::optional<std::string> id_to_token(int32_t id) const override { return decode({id}); }
  int64_t vocab_size() const override { return 16 + 256; }
  std::vector<int32_t> prefix_special_ids() const override {
    return with_bos_ ? std::vector<int32_t>{0} : std::vector<int32_t>{};
  }

 private:
  static bool special_allowed(const EncodeOptions& options, size_t from, size_t to) {
    if (options.special_text != SpecialText::Recognise) return false;
    if (options.special_spans.empty()) return true;
    for (const TextSpan& span : options.special_spans)
      if (span.contains(from, to)) return true;
    return false;
  }
  static const std::vector<std::pair<std::string, int32_t>>& pieces() {
    static const std::vector<std::pair<std::string, int32_t>> table = {
        {"<|im_start|>", 1}, {"<|im_end|>", 2}, {"YES", 3}, {"NO", 4}};
    return table;
  }
  bool with_bos_;
};

// ids of plain bytes, as FakeTokenizer encodes text without specials or words.
inline std::vector<int32_t> byte_ids(std::string_view text) {
  std::vector<int32_t> ids;
  for (char c : text) ids.push_back(static_cast<unsigned char>(c) + 16);
  return ids;
}

}  // namespace sift::testing
