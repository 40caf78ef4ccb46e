#pragma once
// Prompt token contract (design.md, "The scoring contract"):
//
//   prompt(item i) = query_tokens(query) ++ item_tokens(item_i)
//   query_tokens(q) = [BOS, if the tokenizer's post-processor adds one]
//                     ++ encode(query_template before "{query}", special recognised)
//                     ++ encode(q, special as plain text)
//                     ++ encode(query_template after "{query}", special recognised)
//   item_tokens(c)  = encode(item_template before "{item}", special recognised)
//                     ++ encode(c, special as plain text)
//                     ++ encode(item_template after "{item}", special recognised)
//
// Parts are tokenized separately and concatenated as ids: a BPE merge never crosses a
// template/user-text boundary, so an item's ids do not depend on the query or on the other
// items, and user text can never produce a special token (a profile holding "<|im_end|>"
// does not end the turn). The template pieces are encoded once, at construction.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scoring/artifact.h"
#include "tokenizer/tokenizer.h"

namespace sift {

// The two vocabulary rows scoring reads.
struct AnswerTokenIds {
  int32_t yes = -1;
  int32_t no = -1;
};

// yes and no must each encode (no BOS/EOS, special tokens recognised, so an added readout
// token works) to exactly one token; otherwise an Error naming `where` and the field.
AnswerTokenIds resolve_answer_tokens(const Tokenizer& tokenizer, const ScoringArtifact& artifact,
                                     const std::string& where);

class PromptEncoder {
 public:
  PromptEncoder(const Tokenizer& tokenizer, const ScoringArtifact& artifact);

  std::vector<int32_t> query_tokens(std::string_view query) const;
  std::vector<int32_t> item_tokens(std::string_view item) const;
  // item_tokens of each, the user texts encoded in one batch call (spread over threads).
  std::vector<std::vector<int32_t>> item_tokens_batch(const std::vector<std::string>& items) const;

  // Packed generation (mode generate), for the 1-based candidate number `index`:
  //   encode(generate_item_template before "{item}" with {index} = index, recognised)
  //   ++ encode(item, plain) ++ encode(generate_item_template after "{item}", recognised)
  std::vector<int32_t> generate_item_tokens(int64_t index, std::string_view item) const;
  // encode(generate_answer_template, recognised): the instruction that closes the prompt.
  const std::vector<int32_t>& generate_answer_tokens() const { return generate_answer_; }

  const Tokenizer& tokenizer() const { return tokenizer_; }

 private:
  std::vector<int32_t> encode_template(std::string_view text) const;
  std::vector<int32_t> encode_user(std::string_view text) const;

  const Tokenizer& tokenizer_;
  std::vector<int32_t> bos_;
  std::vector<int32_t> query_before_, query_after_;
  std::vector<int32_t> item_before_, item_after_;
  TemplateParts generate_item_parts_;  // split around "{item}"; "{index}" is in .before
  std::vector<int32_t> generate_item_after_;
  std::vector<int32_t> generate_answer_;
};

}  // namespace sift
