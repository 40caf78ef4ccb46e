#pragma once
// The BPE model of tokenizer.json ("model": {"type": "BPE"}), reproducing Hugging Face
// tokenizers' models/bpe (model.rs merge_word, word.rs merge_all): a word starts as one
// symbol per character (unknown characters become byte-fallback tokens <0xXX> or the unk
// token), then the adjacent pair with the lowest merge rank is merged, leftmost first on
// ties, until no pair has a merge.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tokenizer/string_map.h"
#include "tokenizer/word_cache.h"

namespace sift {

class BpeModel {
 public:
  BpeModel(const nlohmann::json& model, const std::string& where);

  // Appends the ids of one pre-token. Thread-safe.
  void tokenize(std::string_view word, std::vector<int32_t>& ids) const;

  std::optional<int32_t> token_to_id(std::string_view token) const;
  std::optional<std::string> id_to_token(int32_t id) const;
  int64_t vocab_size() const { return static_cast<int64_t>(vocab_.size()); }

 private:
  struct MergeTarget {
    uint32_t rank;
    int32_t new_id;
  };
  static uint64_t pair_key(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }
  void load_merges(const nlohmann::json& merges, const std::string& where);
  void merge_word(std::string_view word, std::vector<int32_t>& ids) const;

  StringMap<int32_t> vocab_;
  std::unordered_map<int32_t, std::string> tokens_by_id_;
  std::unordered_map<uint64_t, MergeTarget> merges_;
  std::optional<int32_t> unk_id_;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  std::string continuing_subword_prefix_;
  std::string end_of_word_suffix_;
  std::vector<int32_t> byte_fallback_ids_;  // id of "<0xXX>" per byte, -1 if absent
  mutable WordCache cache_;  // filled by const tokenize(); thread-safe
};

}  // namespace sift
