#include "scoring/prompt.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"

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

PromptEncoder::PromptEncoder(const Tokenizer& tokenizer, const ScoringArtifact& artifact)
    : tokenizer_(tokenizer), bos_(tokenizer.prefix_special_ids()) {
  TemplateParts query = split_template(artifact.query_template, kQueryPlaceholder);
  TemplateParts item = split_template(artifact.item_template, kItemPlaceholder);
  query_before_ = encode_template(query.before);
  query_after_ = encode_template(query.after);
  item_before_ = encode_template(item.before);
  item_after_ = encode_template(item.after);
  generate_item_parts_ = split_template(artifact.generate_item_template, kItemPlaceholder);
  generate_item_after_ = encode_template(generate_item_parts_.after);
  generate_answer_ = encode_template(artifact.generate_answer_template);
}

std::vector<int32_t> PromptEncoder::encode_template(std::string_view text) const {
  if (text.empty()) return {};
  return tokenizer_.encode(text, {.add_special_tokens = false, .special_text = SpecialText::Recognise});
}

std::vector<int32_t> PromptEncoder::encode_user(std::string_view text) const {
  if (text.empty()) return {};
  return tokenizer_.encode(text, {.add_special_tokens = false, .special_text = SpecialText::AsPlainText});
}

std::vector<int32_t> PromptEncoder::query_tokens(std::string_view query) const {
  std::vector<int32_t> ids = bos_;
  append(ids, query_before_);
  append(ids, encode_user(query));
  append(ids, query_after_);
  return ids;
}

std::vector<int32_t> PromptEncoder::item_tokens(std::string_view item) const {
  std::vector<int32_t> ids = item_before_;
  append(ids, encode_user(item));
  append(ids, item_after_);
  return ids;
}

std::vector<std::vector<int32_t>> PromptEncoder::item_tokens_batch(const std::vector<std::string>& items) const {
  std::vector<std::vector<int32_t>> user =
      tokenizer_.encode_batch(items, {.add_special_tokens = false, .special_text = SpecialText::AsPlainText});
  std::vector<std::vector<int32_t>> out(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    out[i].reserve(item_before_.size() + user[i].size() + item_after_.size());
    append(out[i], item_before_);
    append(out[i], user[i]);
    append(out[i], item_after_);
  }
  return out;
}

std::vector<int32_t> PromptEncoder::generate_item_tokens(int64_t index, std::string_view item) const {
  std::string before = generate_item_parts_.before;
  size_t at = before.find(kIndexPlaceholder);
  before.replace(at, kIndexPlaceholder.size(), std::to_string(index));
  std::vector<int32_t> ids = encode_template(before);
  append(ids, encode_user(item));
  append(ids, generate_item_after_);
  return ids;
}

}  // namespace sift
