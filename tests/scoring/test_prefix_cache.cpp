// The prefix cache (scoring/prefix_cache.h: LruPrefixCache) through its interface: blocks are
// kept within the byte budget, the least recently used (inserted or found) out first; a block
// larger than the budget is not kept; budget 0 keeps nothing; keys are the query's ids. A
// random sequence of finds and inserts is checked against a plain LRU written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <list>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "scoring/prefix_cache.h"

namespace sift {
namespace {

// A block of `floats` keys and as many values: 8 x floats bytes.
std::shared_ptr<const KvBlock> block(size_t floats, float fill = 1) {
  auto b = std::make_shared<KvBlock>();
  b->n_keys = static_cast<int64_t>(floats);
  b->keys.assign(floats, fill);
  b->values.assign(floats, -fill);
  return b;
}

// A query's ids (a span is not made from a braced list).
std::vector<int32_t> ids(std::initializer_list<int32_t> list) { return list; }

constexpr int64_t kBlockBytes = 8 * 100;  // block(100)

TEST(LruPrefixCache, KeepsWithinItsBudgetEvictingTheLeastRecentlyUsed) {
  LruPrefixCache cache("v1", 3 * kBlockBytes);
  const std::vector<int32_t> q1{1}, q2{2}, q3{3}, q4{4};
  cache.insert(q1, block(100, 1));
  cache.insert(q2, block(100, 2));
  cache.insert(q3, block(100, 3));
  EXPECT_EQ(cache.stats().bytes, 3 * kBlockBytes);
  ASSERT_NE(cache.find(q1), nullptr);  // q1 used: q2 is now the least recent
  cache.insert(q4, block(100, 4));
  const PrefixCacheStats s = cache.stats();
  EXPECT_EQ(s.evictions, 1);
  EXPECT_EQ(s.entries, 3);
  EXPECT_EQ(s.bytes, 3 * kBlockBytes);
  EXPECT_EQ(cache.find(q2), nullptr);
  for (const auto& [q, fill] : {std::pair{q1, 1.f}, {q3, 3.f}, {q4, 4.f}}) {
    const auto found = cache.find(q);
    ASSERT_NE(found, nullptr) << q[0];
    EXPECT_EQ(found->keys[0], fill) << "the block kept for query " << q[0];
  }
  // A block of twice the size makes room by evicting the two least recently used.
  cache.insert(ids({5}), block(200));
  EXPECT_EQ(cache.stats().evictions, 3);
  EXPECT_EQ(cache.stats().bytes, 3 * kBlockBytes);
  EXPECT_EQ(cache.find(q1), nullptr);
  EXPECT_EQ(cache.find(q3), nullptr);
  EXPECT_NE(cache.find(q4), nullptr);
}

TEST(LruPrefixCache, ABlockLargerThanTheBudgetIsNotKeptAndEvictsNothing) {
  LruPrefixCache cache("v1", 2 * kBlockBytes);
  cache.insert(ids({1}), block(100));
  cache.insert(ids({2}), block(300));
  EXPECT_EQ(cache.find(ids({2})), nullptr);
  EXPECT_NE(cache.find(ids({1})), nullptr);
  EXPECT_EQ(cache.stats().evictions, 0);
  EXPECT_EQ(cache.stats().bytes, kBlockBytes);
}

TEST(LruPrefixCache, BudgetZeroKeepsNothing) {
  LruPrefixCache cache("v1", 0);
  EXPECT_FALSE(cache.enabled());
  cache.insert(ids({1}), block(1));
  EXPECT_EQ(cache.find(ids({1})), nullptr);
  EXPECT_EQ(cache.stats().entries, 0);
  EXPECT_EQ(cache.stats().bytes, 0);
}

TEST(LruPrefixCache, InsertingAKeptQueryAgainRefreshesItWithoutCountingItTwice) {
  LruPrefixCache cache("v1", 2 * kBlockBytes);
  cache.insert(ids({1}), block(100));
  cache.insert(ids({2}), block(100));
  cache.insert(ids({1}), block(100));  // the same query again: now the most recent
  EXPECT_EQ(cache.stats().bytes, 2 * kBlockBytes);
  EXPECT_EQ(cache.stats().insertions, 2);
  cache.insert(ids({3}), block(100));  // evicts {2}, not {1}
  EXPECT_NE(cache.find(ids({1})), nullptr);
  EXPECT_EQ(cache.find(ids({2})), nullptr);
}

TEST(LruPrefixCache, KeysAreTheWholeIdSequence) {
  LruPrefixCache cache("v1", 10 * kBlockBytes);
  cache.insert(ids({1, 2}), block(100));
  EXPECT_EQ(cache.find(ids({1})), nullptr);
  EXPECT_EQ(cache.find(ids({1, 2, 3})), nullptr);
  EXPECT_EQ(cache.find(ids({2, 1})), nullptr);
  EXPECT_EQ(cache.find(ids({})), nullptr);
  EXPECT_NE(cache.find(ids({1, 2})), nullptr);
  const PrefixCacheStats s = cache.stats();
  EXPECT_EQ(s.hits, 1);
  EXPECT_EQ(s.misses, 4);
}

// A plain LRU of (query, bytes), most recent first: what the cache must do.
struct ReferenceLru {
  int64_t budget;
  std::list<std::pair<std::vector<int32_t>, int64_t>> entries;
  int64_t bytes = 0, evictions = 0;

  bool find(const std::vector<int32_t>& q) {
    auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == q; });
    if (it == entries.end()) return false;
    entries.splice(entries.begin(), entries, it);
    return true;
  }
  void insert(const std::vector<int32_t>& q, int64_t size) {
    if (size > budget) return;
    if (find(q)) return;
    while (bytes + size > budget) {
      bytes -= entries.back().second;
      entries.pop_back();
      ++evictions;
    }
    entries.emplace_front(q, size);
    bytes += size;
  }
};

TEST(LruPrefixCache, ARandomSequenceBehavesAsAPlainLru) {
  std::mt19937 rng(11);
  const int64_t budget = 1000 * 8;
  LruPrefixCache cache("v1", budget);
  ReferenceLru reference{budget, {}};
  for (int step = 0; step < 5000; ++step) {
    const std::vector<int32_t> q = {static_cast<int32_t>(rng() % 30), static_cast<int32_t>(rng() % 2)};
    if (rng() % 2) {
      EXPECT_EQ(cache.find(q) != nullptr, reference.find(q)) << "step " << step;
    } else {
      const size_t floats = 1 + rng() % 400;  // up to 3200 bytes: a few blocks fill the budget
      cache.insert(q, block(floats));
      reference.insert(q, static_cast<int64_t>(8 * floats));
    }
    const PrefixCacheStats s = cache.stats();
    ASSERT_LE(s.bytes, budget) << "step " << step;
    ASSERT_EQ(s.bytes, reference.bytes) << "step " << step;
    ASSERT_EQ(s.entries, static_cast<int64_t>(reference.entries.size())) << "step " << step;
    ASSERT_EQ(s.evictions, reference.evictions) << "step " << step;
  }
}

}  // namespace
}  // namespace sift
