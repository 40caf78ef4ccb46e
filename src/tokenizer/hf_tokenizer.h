#pragma once
// The Tokenizer for Hugging Face tokenizer.json files with a BPE model. The pipeline of one
// encode, as in HF TokenizerImpl::encode_single_sequence:
//   1. added tokens with normalized=false are split out of the raw text;
//   2. each remaining piece is normalized, then added tokens with normalized=true are split out;
//   3. each remaining piece is pre-tokenized into words; each word goes through BPE;
//   4. the post-processor's ids are put around the result when add_special_tokens is set.
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "tokenizer/added_tokens.h"
#include "tokenizer/bpe.h"
#include "tokenizer/decoders.h"
#include "tokenizer/normalizers.h"
#include "tokenizer/post_processor.h"
#include "tokenizer/pre_tokenizers.h"
#include "tokenizer/tokenizer.h"

namespace sift {

class HfTokenizer final : public Tokenizer {
 public:
  HfTokenizer(const nlohmann::json& config, const std::string& where);

  std::vector<int32_t> encode(std::string_view text, const EncodeOptions& options) const override;
  std::vector<std::vector<int32_t>> encode_batch(const std::vector<std::string>& texts,
                                                 const EncodeOptions& options) const override;
  std::string decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const override;

  std::optional<int32_t> token_to_id(std::string_view token) const override;
  std::optional<std::string> id_to_token(int32_t id) const override;
  int64_t vocab_size() const override;
  std::vector<int32_t> prefix_special_ids() const override { return special_ids_.prefix; }

 private:
  // Steps 2-3 for one piece of raw text (no added token of the raw stage inside).
  void encode_plain_segment(std::string_view segment, size_t original_start, const EncodeOptions& options,
                            std::vector<int32_t>& ids) const;
  bool is_special_content(std::string_view token) const;

  std::unique_ptr<Normalizer> normalizer_;      // may be null
  std::unique_ptr<PreTokenizer> pre_tokenizer_;  // may be null
  std::unique_ptr<BpeModel> model_;
  std::unique_ptr<AddedVocabulary> added_;
  SpecialIds special_ids_;
  std::unique_ptr<Decoder> decoder_;  // may be null: tokens are then joined with spaces
};

}  // namespace sift
