#include "tokenizer/word_cache.h"

namespace sift {

WordCache::Shard& WordCache::shard_for(std::string_view word) const {
  return shards_[StringViewHash{}(word) % kShards];
}

bool WordCache::lookup(std::string_view word, std::vector<int32_t>& ids) const {
  if (word.size() > kMaxWordBytes) return false;
  Shard& shard = shard_for(word);
  std::lock_guard lock(shard.mutex);
  const auto it = shard.words.find(word);
  if (it == shard.words.end()) return false;
  ids.insert(ids.end(), it->second.begin(), it->second.end());
  return true;
}

void WordCache::insert(std::string_view word, const int32_t* ids, size_t n_ids) {
  if (word.size() > kMaxWordBytes) return;
  Shard& shard = shard_for(word);
  std::lock_guard lock(shard.mutex);
  if (shard.words.size() >= kWordsPerShard) return;
  shard.words.emplace(std::string(word), std::vector<int32_t>(ids, ids + n_ids));
}

}  // namespace sift
