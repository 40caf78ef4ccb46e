#include "scoring/prefix_cache.h"

#include "scoring/plan.h"

namespace sift {

LruPrefixCache::LruPrefixCache(std::string artifact_version, int64_t budget_bytes)
    : version_(std::move(artifact_version)), budget_(budget_bytes) {}

// version, a NUL, then the ids' bytes: two keys are equal exactly when both parts are.
std::string LruPrefixCache::key_of(std::span<const int32_t> query) const {
  return version_ + '\0' + ids_key(query);
}

std::shared_ptr<const KvBlock> LruPrefixCache::find(std::span<const int32_t> query) {
  if (!enabled()) return nullptr;
  const std::string key = key_of(query);
  std::lock_guard lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  ++stats_.hits;
  return it->second->block;
}

void LruPrefixCache::insert(std::span<const int32_t> query, std::shared_ptr<const KvBlock> block) {
  const auto bytes = static_cast<int64_t>(block->bytes());
  if (!enabled() || bytes > budget_) return;
  std::string key = key_of(query);
  std::lock_guard lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {  // already there (same bits): refresh
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  while (stats_.bytes + bytes > budget_ && !lru_.empty()) {
    stats_.bytes -= static_cast<int64_t>(lru_.back().block->bytes());
    index_.erase(lru_.back().key);
    lru_.pop_back();
    ++stats_.evictions;
  }
  lru_.push_front({key, std::move(block)});
  index_.emplace(std::move(key), lru_.begin());
  stats_.bytes += bytes;
  ++stats_.insertions;
}

PrefixCacheStats LruPrefixCache::stats() const {
  std::lock_guard lock(mutex_);
  PrefixCacheStats out = stats_;
  out.entries = static_cast<int64_t>(lru_.size());
  return out;
}

}  // namespace sift
