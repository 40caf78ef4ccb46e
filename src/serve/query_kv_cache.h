#pragma once
// QueryKvCache: the K/V of query parts already prefilled, kept for the next request with the
// same query (the next round of a profile, the second half of a split request), so that one
// prefills only its items. Keyed by the artifact version and the query's token ids; least
// recently used first out when the blocks' bytes would pass the budget.
//
// Exactness: a query run is a causal prompt at positions 0..Lq-1 with no context, so its K/V
// are the same bits in any call (docs/engine.md §3); an item attending to a copy of them sees
// what it would see in [q; c_i]. Hits, misses and evictions never change a score.
//
// Thread-safe (one mutex): engine loops share it; /metrics reads its counters.
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/session.h"

namespace sift::serve {

struct QueryKvCacheStats {
  int64_t hits = 0, misses = 0, insertions = 0, evictions = 0;
  int64_t bytes = 0, entries = 0;
};

class QueryKvCache {
 public:
  // budget_bytes = 0: nothing is ever kept (every lookup misses).
  QueryKvCache(std::string artifact_version, int64_t budget_bytes);

  bool enabled() const { return budget_ > 0; }
  // The cached K/V of this query, marked most recently used; null on a miss.
  std::shared_ptr<const KvBlock> find(const std::vector<int32_t>& query);
  // Keeps a block (evicting the least recently used to make room); a block larger than the
  // whole budget is not kept.
  void insert(const std::vector<int32_t>& query, std::shared_ptr<const KvBlock> block);
  QueryKvCacheStats stats() const;

 private:
  std::string key_of(const std::vector<int32_t>& query) const;

  struct Entry {
    std::string key;
    std::shared_ptr<const KvBlock> block;
  };
  mutable std::mutex mutex_;
  std::string version_;
  int64_t budget_;
  std::list<Entry> lru_;  // front = most recently used
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  QueryKvCacheStats stats_;
};

}  // namespace sift::serve
