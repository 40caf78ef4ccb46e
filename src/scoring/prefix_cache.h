#pragma once
// PrefixCache: the K/V of query parts already prefilled, kept for the next request with the
// same query (the next round of a profile, the second half of a split row, the next row or
// request that repeats a query), so that one prefills only its items. The scheduler
// (scoring/scheduler.h) is its one user: it looks a query up before it plans the query's run,
// and offers the keys of every query it ran.
//
// Exactness: a query run is a causal prompt at positions 0..Lq-1 with no context, so its K/V
// are the same bits in any call (docs/architecture.md, "Why scores are exact"); an item
// attending to a copy of them sees what it would see in [q; c_i]. Hits, misses and evictions
// never change a score.
//
// LruPrefixCache is the implementation: keyed by the artifact version and the query's token
// ids, least recently used first out when the blocks' bytes would pass the budget.
// Thread-safe (one mutex): several engines (scheduler workers, contexts) share one.
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>

#include "model/session.h"

namespace sift {

struct PrefixCacheStats {
  int64_t hits = 0, misses = 0, insertions = 0, evictions = 0;
  int64_t bytes = 0, entries = 0;
};

class PrefixCache {
 public:
  virtual ~PrefixCache() = default;
  // False when nothing is ever kept: then no query's keys are reused across forward calls.
  virtual bool enabled() const = 0;
  // The cached K/V of this query (marked most recently used), or null.
  virtual std::shared_ptr<const KvBlock> find(std::span<const int32_t> query) = 0;
  // Offers the K/V of a query just run; the cache may keep it.
  virtual void insert(std::span<const int32_t> query, std::shared_ptr<const KvBlock> block) = 0;
  virtual PrefixCacheStats stats() const = 0;
};

class LruPrefixCache final : public PrefixCache {
 public:
  // budget_bytes = 0: nothing is ever kept (every lookup misses).
  LruPrefixCache(std::string artifact_version, int64_t budget_bytes);

  bool enabled() const override { return budget_ > 0; }
  std::shared_ptr<const KvBlock> find(std::span<const int32_t> query) override;
  // Keeps a block (evicting the least recently used to make room); a block larger than the
  // whole budget is not kept.
  void insert(std::span<const int32_t> query, std::shared_ptr<const KvBlock> block) override;
  PrefixCacheStats stats() const override;

 private:
  std::string key_of(std::span<const int32_t> query) const;

  struct Entry {
    std::string key;
    std::shared_ptr<const KvBlock> block;
  };
  mutable std::mutex mutex_;
  std::string version_;
  int64_t budget_;
  std::list<Entry> lru_;  // front = most recently used
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  PrefixCacheStats stats_;
};

}  // namespace sift
