#include "tokenizer/hf_tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/error.h"
#include "core/parallel.h"
#include "tokenizer/utf8.h"

namespace sift {

HfTokenizer::HfTokenizer(const nlohmann::json& config, const std::string& where) {
  if (!config.is_object()) fail("{}: the top level must be a JSON object", where);
  const auto& model = config.at("model");
  const std::string model_type = model.value("type", std::string("BPE"));
  if (model_type != "BPE") fail("{}: model: unsupported model type \"{}\" (only BPE)", where, model_type);
  if (config.contains("truncation") && !config["truncation"].is_null()) {
    fail("{}: truncation is not supported (it would cut ids); set it to null", where);
  }
  // "padding" only matters for batches padded to one length; sift returns unpadded ids.
  const auto component = [&](const char* key) -> const nlohmann::json* {
    const auto it = config.find(key);
    return it == config.end() || it->is_null() ? nullptr : &*it;
  };
  if (const auto* json = component("normalizer")) normalizer_ = make_normalizer(*json, where + ": normalizer");
  if (const auto* json = component("pre_tokenizer")) pre_tokenizer_ = make_pre_tokenizer(*json, where + ": pre_tokenizer");
  model_ = std::make_unique<BpeModel>(model, where + ": model");
  added_ = std::make_unique<AddedVocabulary>(config.value("added_tokens", nlohmann::json::array()), normalizer_.get(),
                                             where + ": added_tokens");
  if (const auto* json = component("post_processor")) special_ids_ = make_post_processor(*json, where + ": post_processor");
  if (const auto* json = component("decoder")) decoder_ = make_decoder(*json, where + ": decoder");
}

void HfTokenizer::encode_plain_segment(std::string_view segment, size_t original_start, const EncodeOptions& options,
                                       std::vector<int32_t>& ids) const {
  std::string normalized(segment);
  if (normalizer_) normalizer_->normalize(normalized);
  // Offsets in the normalized text are not those of the raw text, so with special spans a
  // normalized special token is recognised only when the whole raw piece lies in one span
  // (a piece of template text alone); a piece holding any other text takes them as plain text.
  SpecialText special_text = options.special_text;
  if (!options.special_spans.empty() &&
      std::none_of(options.special_spans.begin(), options.special_spans.end(), [&](const TextSpan& span) {
        return span.contains(original_start, original_start + segment.size());
      }))
    special_text = SpecialText::AsPlainText;
  std::vector<TextSegment> pieces;
  added_->split(normalized, AddedVocabulary::Stage::Normalized, special_text, {}, pieces);
  std::vector<PreToken> words;
  for (const auto& piece : pieces) {
    if (piece.added_id >= 0) {
      ids.push_back(piece.added_id);
      continue;
    }
    words.clear();
    words.push_back({normalized.substr(piece.start, piece.end - piece.start), original_start + piece.start});
    if (pre_tokenizer_) pre_tokenizer_->pre_tokenize(words);
    for (const auto& word : words) model_->tokenize(word.text, ids);
  }
}

std::vector<int32_t> HfTokenizer::encode(std::string_view text, const EncodeOptions& options) const {
  utf8::validate(text);
  std::vector<int32_t> ids;
  if (options.add_special_tokens) ids = special_ids_.prefix;
  std::vector<TextSegment> segments;
  added_->split(text, AddedVocabulary::Stage::Raw, options.special_text, options.special_spans, segments);
  for (const auto& segment : segments) {
    if (segment.added_id >= 0) {
      ids.push_back(segment.added_id);
    } else {
      encode_plain_segment(text.substr(segment.start, segment.end - segment.start), segment.start, options, ids);
    }
  }
  if (options.add_special_tokens) ids.insert(ids.end(), special_ids_.suffix.begin(), special_ids_.suffix.end());
  return ids;
}

std::vector<std::vector<int32_t>> HfTokenizer::encode_batch(const std::vector<std::string>& texts,
                                                            const EncodeOptions& options) const {
  std::vector<std::vector<int32_t>> results(texts.size());
  parallel_for_rethrow(static_cast<int64_t>(texts.size()), [&](int64_t i) { results[i] = encode(texts[i], options); });
  return results;
}

bool HfTokenizer::is_special_content(std::string_view token) const {
  const auto id = added_->token_to_id(token);
  return id && added_->find(*id)->special;
}

// HF Tokenizer::decode: ids without a token are dropped; with skip_special_tokens the special
// added tokens are dropped; the decoder rewrites the token list, which is then joined.
std::string HfTokenizer::decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const int32_t id : ids) {
    auto token = id_to_token(id);
    if (!token || (skip_special_tokens && is_special_content(*token))) continue;
    tokens.push_back(std::move(*token));
  }
  if (!decoder_) {
    std::string joined;
    for (size_t i = 0; i < tokens.size(); ++i) joined += (i ? " " : "") + tokens[i];
    return joined;
  }
  decoder_->decode_chain(tokens);
  std::string text;
  for (const auto& token : tokens) text += token;
  return text;
}

std::optional<int32_t> HfTokenizer::token_to_id(std::string_view token) const {
  if (const auto id = added_->token_to_id(token)) return id;
  return model_->token_to_id(token);
}

std::optional<std::string> HfTokenizer::id_to_token(int32_t id) const {
  if (const AddedToken* token = added_->find(id)) return token->content;
  return model_->id_to_token(id);
}

// Like HF get_vocab_size(with_added_tokens=true): distinct tokens of the model and the added vocabulary.
int64_t HfTokenizer::vocab_size() const {
  int64_t n = model_->vocab_size();
  for (const int32_t id : added_->ids())  // an id near 2^31 must not mean a loop over all ids below it
    if (!model_->token_to_id(added_->find(id)->content)) ++n;
  return n;
}

}  // namespace sift
