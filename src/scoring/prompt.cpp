#include "scoring/prompt.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/parallel.h"
#include "scoring/generate_answers.h"

namespace sift {
namespace {

void append(std::vector<int32_t>& out, const std::vector<int32_t>& ids) {
  out.insert(out.end(), ids.begin(), ids.end());
}

int32_t single_answer_token(const Tokenizer& tokenizer, const std::string& text, const char* field,
                            const std::string& where) {
  std::vector<int32_t> ids = tokenizer.encode(text, {.add_special_tokens = false,
                                                     .special_text = SpecialText::Recognise});
  if (ids.size() != 1)
    fail("{}: field \"{}\" (\"{}\") must encode to exactly one token, but it encodes to {} tokens [{}]", where,
         field, text, ids.size(), fmt::join(ids, ", "));
  return ids[0];
}

}  // namespace

AnswerTokenIds resolve_answer_tokens(const Tokenizer& tokenizer, const ScoringArtifact& artifact,
                                     const std::string& where) {
  AnswerTokenIds answer;
  answer.yes = single_answer_token(tokenizer, artifact.yes, "yes", where);
  answer.no = single_answer_token(tokenizer, artifact.no, "no", where);
  if (answer.yes == answer.no)
    fail("{}: fields \"yes\" and \"no\" encode to the same token {}", where, answer.yes);
  return answer;
}

RenderedPart render_part(const TemplateParts& parts, std::string_view user_text) {
  RenderedPart part;
  part.text.reserve(parts.before.size() + user_text.size() + parts.after.size());
  part.text.append(parts.before).append(user_text).append(parts.after);
  const size_t user_end = parts.before.size() + user_text.size();
  part.template_spans[0] = {0, parts.before.size()};
  part.template_spans[1] = {user_end, part.text.size()};
  return part;
}

std::vector<int32_t> encode_part(const Tokenizer& tokenizer, const RenderedPart& part) {
  if (part.text.empty()) return {};
  return tokenizer.encode(part.text, {.add_special_tokens = false,
                                      .special_text = SpecialText::Recognise,
                                      .special_spans = part.template_spans});
}

PromptEncoder::PromptEncoder(const Tokenizer& tokenizer, const ScoringArtifact& artifact)
    : tokenizer_(tokenizer),
      bos_(tokenizer.prefix_special_ids()),
      query_parts_(split_template(artifact.query_template, kQueryPlaceholder)),
      item_parts_(split_template(artifact.item_template, kItemPlaceholder)),
      generate_item_parts_(split_template(artifact.generate_item_template, kItemPlaceholder)),
      generate_answer_(encode_part(tokenizer, render_part({artifact.generate_answer_template, ""}, ""))),
      yes_(artifact.yes),
      no_(artifact.no) {}

std::vector<int32_t> PromptEncoder::query_tokens(std::string_view query) const {
  std::vector<int32_t> ids = bos_;
  append(ids, encode_part(tokenizer_, render_part(query_parts_, query)));
  return ids;
}

std::vector<int32_t> PromptEncoder::item_tokens(std::string_view item) const {
  return encode_part(tokenizer_, render_part(item_parts_, item));
}

std::vector<std::vector<int32_t>> PromptEncoder::item_tokens_batch(const std::vector<std::string>& items) const {
  std::vector<std::vector<int32_t>> out(items.size());
  parallel_for_rethrow(static_cast<int64_t>(items.size()), [&](int64_t i) { out[i] = item_tokens(items[i]); });
  return out;
}

std::vector<int32_t> PromptEncoder::generate_item_tokens(int64_t index, std::string_view item) const {
  TemplateParts parts = generate_item_parts_;
  parts.before.replace(parts.before.find(kIndexPlaceholder), kIndexPlaceholder.size(), std::to_string(index));
  return encode_part(tokenizer_, render_part(parts, item));
}

std::vector<int32_t> PromptEncoder::generate_prompt(std::span<const int32_t> query,
                                                    std::span<const std::vector<int32_t>> item_lines) const {
  std::vector<int32_t> prompt(query.begin(), query.end());
  for (const std::vector<int32_t>& line : item_lines) append(prompt, line);
  append(prompt, generate_answer_);
  return prompt;
}

std::vector<int32_t> PromptEncoder::generate_answer_list_tokens(const std::vector<bool>& decisions) const {
  return encode_part(tokenizer_, render_part({format_answer_list(decisions, yes_, no_), ""}, ""));
}

}  // namespace sift
