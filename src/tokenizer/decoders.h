#pragma once
// Decoders of tokenizer.json ("decoder"): ByteLevel, Metaspace, ByteFallback, Fuse, Strip,
// Replace and Sequence. Each rewrites the list of token strings, as Hugging Face's
// Decoder::decode_chain does; the tokenizer joins the final list.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace sift {

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
};

// Throws Error naming an unknown type and `where`.
std::unique_ptr<Decoder> make_decoder(const nlohmann::json& json, const std::string& where,
                                      int sequence_depth = 0);

}  // namespace sift
