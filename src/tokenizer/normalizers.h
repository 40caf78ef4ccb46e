#pragma once
// Normalizers of tokenizer.json ("normalizer"): NFC, NFD, NFKC, NFKD, Lowercase, Strip,
// Replace, Prepend and Sequence, with Hugging Face tokenizers' semantics. They work on the
// text alone: sift needs ids, not offsets, so no alignment map is kept.
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace sift {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(std::string& text) const = 0;  // text is valid UTF-8, stays so
};

// Throws Error naming the unknown type and `where` (e.g. "tokenizer.json: normalizer").
std::unique_ptr<Normalizer> make_normalizer(const nlohmann::json& json, const std::string& where,
                                            int sequence_depth = 0);

}  // namespace sift
