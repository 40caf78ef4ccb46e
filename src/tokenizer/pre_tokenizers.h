#pragma once
// Pre-tokenizers of tokenizer.json ("pre_tokenizer"): Split, ByteLevel, Digits, Metaspace,
// Whitespace, WhitespaceSplit and Sequence, with Hugging Face tokenizers' semantics. Each
// one maps every piece to zero or more pieces; empty pieces are dropped, as
// PreTokenizedString::split does.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace sift {

struct PreToken {
  std::string text;
  // Byte offset of the piece's start in the original input. Only "is it 0" matters: it is
  // Metaspace's prepend_scheme "first" test (HF: normalized.offsets_original().0 == 0).
  size_t original_start = 0;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual void pre_tokenize(std::vector<PreToken>& pieces) const = 0;
};

// Throws Error naming an unknown type and `where`.
std::unique_ptr<PreTokenizer> make_pre_tokenizer(const nlohmann::json& json, const std::string& where,
                                                 int sequence_depth = 0);

}  // namespace sift
