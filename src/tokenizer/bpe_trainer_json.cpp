// trained_bpe_to_tokenizer_json: the tokenizer.json of a trained byte-level BPE.
#include "tokenizer/bpe_trainer.h"
#include "tokenizer/byte_level.h"

namespace sift {
namespace {

std::string byte_level_text(const std::string& bytes) {
  std::string text;
  byte_level::encode(bytes, text);
  return text;
}

}  // namespace

nlohmann::ordered_json trained_bpe_to_tokenizer_json(const TrainedBpe& bpe) {
  using nlohmann::ordered_json;
  ordered_json added_tokens = ordered_json::array();
  for (size_t k = 0; k < bpe.special_tokens.size(); ++k) {
    added_tokens.push_back({{"id", static_cast<int64_t>(bpe.tokens.size() + k)},
                            {"content", bpe.special_tokens[k]},
                            {"single_word", false},
                            {"lstrip", false},
                            {"rstrip", false},
                            {"normalized", false},
                            {"special", true}});
  }
  ordered_json vocab = ordered_json::object();
  for (size_t id = 0; id < bpe.tokens.size(); ++id) vocab[byte_level_text(bpe.tokens[id])] = static_cast<int64_t>(id);
  ordered_json merges = ordered_json::array();
  for (const auto& [left, right] : bpe.merges)
    merges.push_back({byte_level_text(bpe.tokens[left]), byte_level_text(bpe.tokens[right])});

  ordered_json model = {{"type", "BPE"},
                        {"dropout", nullptr},
                        {"unk_token", nullptr},
                        {"continuing_subword_prefix", nullptr},
                        {"end_of_word_suffix", nullptr},
                        {"fuse_unk", false},
                        {"byte_fallback", false},
                        {"ignore_merges", false},
                        {"vocab", std::move(vocab)},
                        {"merges", std::move(merges)}};
  return {{"version", "1.0"},
          {"truncation", nullptr},
          {"padding", nullptr},
          {"added_tokens", std::move(added_tokens)},
          {"normalizer", nullptr},
          {"pre_tokenizer", bpe_pre_tokenizer_json(bpe.prefix_space)},
          {"post_processor", byte_level_json(false)},
          {"decoder", byte_level_json(false)},
          {"model", std::move(model)}};
}

}  // namespace sift
