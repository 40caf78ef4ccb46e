#pragma once
// A thread-safe cache from a pre-token to its BPE ids, split into independently locked
// shards so that encode_batch threads rarely wait on each other. Once a shard is full it
// stops admitting words (as Hugging Face's BPE cache does); results never depend on it.
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "tokenizer/string_map.h"

namespace sift {

class WordCache {
 public:
  static constexpr size_t kShards = 64;
  static constexpr size_t kWordsPerShard = 4096;
  static constexpr size_t kMaxWordBytes = 256;  // longer pre-tokens are not cached

  // Appends the cached ids of `word` to `ids`; false if `word` is not cached.
  bool lookup(std::string_view word, std::vector<int32_t>& ids) const;
  void insert(std::string_view word, const int32_t* ids, size_t n_ids);

 private:
  struct Shard {
    mutable std::mutex mutex;
    StringMap<std::vector<int32_t>> words;
  };
  Shard& shard_for(std::string_view word) const;
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace sift
