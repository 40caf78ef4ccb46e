#pragma once
// Prompt token contract (docs/scoring-contract.md):
//
//   prompt(item i)  = query_tokens(query) ++ item_tokens(item_i)
//   query_tokens(q) = [BOS, if the tokenizer's post-processor adds one] ++ encode_part(render(query_template, q))
//   item_tokens(c)  = encode_part(render(item_template, c))
//
// render() puts the user's text in place of the template's one placeholder; each part is
// tokenized as ONE text, so pre-tokenization and BPE merges run across the template/user
// boundary exactly as Hugging Face runs them on the rendered string ("Qualification: " +
// "Python" gives ":", " Python", not ":", " ", "Python"). encode_part recognises special
// tokens only where they lie wholly inside the template's own text: a "<|im_end|>" typed into
// a profile is plain text and cannot end the turn. With no special-token look-alike in the
// user text, encode_part(rendered) = HF tokenizer.encode(rendered, add_special_tokens=False).
//
// The parts stay separate (as SGLang's /v1/score concatenates a query and its items as ids):
// an item's ids never depend on the query or on the other items.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scoring/artifact.h"
#include "scoring/readout.h"
#include "tokenizer/tokenizer.h"

namespace sift {

// yes and no must each encode (no BOS/EOS, special tokens recognised, so an added readout
// token works) to exactly one token; otherwise an Error naming `where` and the field.
AnswerTokenIds resolve_answer_tokens(const Tokenizer& tokenizer, const ScoringArtifact& artifact,
                                     const std::string& where);

class PromptEncoder {
 public:
  PromptEncoder(const Tokenizer& tokenizer, const ScoringArtifact& artifact);

  std::vector<int32_t> query_tokens(std::string_view query) const;
  std::vector<int32_t> item_tokens(std::string_view item) const;
  // item_tokens of each, spread over threads.
  std::vector<std::vector<int32_t>> item_tokens_batch(const std::vector<std::string>& items) const;

  // Packed generation (mode generate), for the 1-based candidate number `index`: the part
  // generate_item_template with {index} = index and {item} = item, encoded as above.
  std::vector<int32_t> generate_item_tokens(int64_t index, std::string_view item) const;
  // generate_answer_template (template text only): the instruction that closes the prompt.
  const std::vector<int32_t>& generate_answer_tokens() const { return generate_answer_; }
  // The whole packed-generation prompt of one request, the ONE assembly that `sift score
  // --mode generate` prefills and `sift train --objective generate` trains on:
  //   query ++ item_lines[0] ++ ... ++ item_lines[n-1] ++ generate_answer_tokens()
  // query = query_tokens(q); item_lines[k] = generate_item_tokens(number of item k, item k).
  std::vector<int32_t> generate_prompt(std::span<const int32_t> query,
                                       std::span<const std::vector<int32_t>> item_lines) const;
  // The answer list a model should write after generate_prompt, as ids: the text
  // format_answer_list(decisions, yes, no) ("1: <yes>\n2: <no>\n...", generate_answers.h)
  // encoded as one template-text part (special tokens recognised, as yes/no themselves).
  std::vector<int32_t> generate_answer_list_tokens(const std::vector<bool>& decisions) const;

  const Tokenizer& tokenizer() const { return tokenizer_; }

 private:
  const Tokenizer& tokenizer_;
  std::vector<int32_t> bos_;
  TemplateParts query_parts_, item_parts_;
  TemplateParts generate_item_parts_;  // split around "{item}"; "{index}" is in .before
  std::vector<int32_t> generate_answer_;
  std::string yes_, no_;
};

// A prompt part: template text with the user's text in place of its placeholder.
struct RenderedPart {
  std::string text;
  TextSpan template_spans[2];  // the template text before and after the user's text
};
RenderedPart render_part(const TemplateParts& parts, std::string_view user_text);

// The part's ids: special tokens recognised only inside its template spans (see above).
std::vector<int32_t> encode_part(const Tokenizer& tokenizer, const RenderedPart& part);

}  // namespace sift
