#pragma once
// Tokenizer: Hugging Face tokenizer.json (BPE models, normalizers, pre-tokenizers, added
// tokens, post-processors, decoders), with ids identical to Hugging Face tokenizers.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sift {

// How special (added) tokens written in the text itself are treated.
enum class SpecialText {
  Recognise,  // template text: "<|im_start|>" becomes its one added-token id
  AsPlainText // user text (default for profiles and candidates): encoded like any text
};

// Bytes [begin, end) of a text.
struct TextSpan {
  size_t begin = 0, end = 0;
  bool contains(size_t from, size_t to) const { return begin <= from && to <= end; }
};

struct EncodeOptions {
  bool add_special_tokens = true;  // the post-processor's BOS/EOS, like HF's add_special_tokens
  SpecialText special_text = SpecialText::AsPlainText;
  // With SpecialText::Recognise: when not empty, a special token is recognised only where it
  // lies wholly inside one of these spans (a rendered prompt part's template text); anywhere
  // else it is plain text, as with AsPlainText. Empty: recognised everywhere.
  std::span<const TextSpan> special_spans = {};
};

class Tokenizer {
 public:
  static std::unique_ptr<Tokenizer> load(const std::filesystem::path& tokenizer_json);
  static std::unique_ptr<Tokenizer> from_json_string(std::string_view json, const std::string& where);
  virtual ~Tokenizer() = default;

  // Throws Error on invalid UTF-8 (naming the byte offset).
  virtual std::vector<int32_t> encode(std::string_view text, const EncodeOptions& options = {}) const = 0;
  // Encodes many texts, spread over threads; result i is encode(texts[i]).
  virtual std::vector<std::vector<int32_t>> encode_batch(const std::vector<std::string>& texts,
                                                         const EncodeOptions& options = {}) const = 0;
  virtual std::string decode(const std::vector<int32_t>& ids, bool skip_special_tokens = false) const = 0;

  virtual std::optional<int32_t> token_to_id(std::string_view token) const = 0;
  virtual std::optional<std::string> id_to_token(int32_t id) const = 0;
  virtual int64_t vocab_size() const = 0;  // including added tokens
  // The ids the post-processor puts before the text (e.g. BOS) when add_special_tokens.
  virtual std::vector<int32_t> prefix_special_ids() const = 0;
};

}  // namespace sift
