#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "core/error.h"
#include "scoring/request_sizing.h"

namespace sift {
namespace {

using ::testing::HasSubstr;

// Fewest contiguous groups by dynamic programming over prefixes: best[j] = min over i < j
// with Lq + sum(lens[i..j)) <= T of best[i] + 1.
int64_t fewest_groups(int64_t query_len, const std::vector<int64_t>& lens, int64_t limit) {
  const size_t n = lens.size();
  std::vector<int64_t> best(n + 1, INT64_MAX);
  best[0] = 0;
  for (size_t j = 1; j <= n; ++j) {
    int64_t tokens = query_len;
    for (size_t i = j; i-- > 0;) {
      tokens += lens[i];
      if (tokens > limit) break;
      if (best[i] != INT64_MAX) best[j] = std::min(best[j], best[i] + 1);
    }
  }
  return best[n];
}

TEST(RequestSizing, EverythingFitsInOneRequest) {
  const std::vector<int64_t> lens = {3, 4, 5};
  EXPECT_EQ(split_into_requests(10, lens, 22), (std::vector<ItemRange>{{0, 3}}));
  EXPECT_TRUE(split_into_requests(10, std::vector<int64_t>{}, 22).empty());
}

TEST(RequestSizing, SplitsInOrderCarryingTheQuery) {
  const std::vector<int64_t> lens = {3, 4, 5, 1};
  // 10 + 3 + 4 = 17 <= 18; +5 > 18; 10 + 5 + 1 = 16.
  EXPECT_EQ(split_into_requests(10, lens, 18), (std::vector<ItemRange>{{0, 2}, {2, 4}}));
  EXPECT_EQ(split_into_requests(10, lens, 16), (std::vector<ItemRange>{{0, 1}, {1, 2}, {2, 4}}));  // 10+5+1 = 16
  EXPECT_EQ(split_into_requests(10, lens, 15), (std::vector<ItemRange>{{0, 1}, {1, 2}, {2, 3}, {3, 4}}));
}

TEST(RequestSizing, GreedyMatchesTheOptimumAndRespectsTheLimit) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const int64_t query_len = rng() % 20;
    std::vector<int64_t> lens(rng() % 15);
    for (int64_t& len : lens) len = 1 + rng() % 12;
    const int64_t limit = query_len + 12 + rng() % 40;
    std::vector<ItemRange> groups = split_into_requests(query_len, lens, limit);
    ASSERT_EQ(static_cast<int64_t>(groups.size()), fewest_groups(query_len, lens, limit));
    int64_t next = 0;
    for (const ItemRange& g : groups) {
      ASSERT_EQ(g.begin, next);
      ASSERT_GT(g.size(), 0);
      int64_t tokens = query_len;
      for (int64_t i = g.begin; i < g.end; ++i) tokens += lens[i];
      ASSERT_LE(tokens, limit);
      next = g.end;
    }
    ASSERT_EQ(next, static_cast<int64_t>(lens.size()));
  }
}

TEST(RequestSizing, AnItemThatCannotFitWithTheQueryIsAnErrorNamingTheLengths) {
  const std::vector<int64_t> lens = {3, 30, 5};
  try {
    split_into_requests(744, lens, 770);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("744 tokens"));
    EXPECT_THAT(e.what(), HasSubstr("item 1 (30 tokens)"));
    EXPECT_THAT(e.what(), HasSubstr("774"));
    EXPECT_THAT(e.what(), HasSubstr("770"));
  }
  EXPECT_THROW(split_into_requests(1, lens, 0), Error);
}

// The sizes of Qwen3-0.6B that the activation estimate reads.
ModelConfig qwen3_0_6b_shape() {
  ModelConfig config;
  config.hidden_size = 1024;
  config.n_heads = 16;
  config.n_kv_heads = 8;
  config.head_dim = 128;
  config.intermediate_size = 3072;
  config.max_position_embeddings = 40960;
  return config;
}

TEST(RequestSizing, DefaultIsTheSmallerOfPositionsAndMemory) {
  ModelConfig config = qwen3_0_6b_shape();
  const int64_t by_memory = kDefaultRequestMemoryBytes / activation_bytes_per_token(config);
  EXPECT_EQ(default_max_request_tokens(config), std::min<int64_t>(40960, by_memory));
  EXPECT_GT(by_memory, 744 + 400 * 28);  // the benchmark's N = 400 fits in one 0.6B request
  config.max_position_embeddings = 512;
  EXPECT_EQ(default_max_request_tokens(config), 512);
}

TEST(RequestSizing, DefaultCallHoldsAboutACacheOfActivations) {
  ModelConfig config = qwen3_0_6b_shape();
  const int64_t per_token = activation_bytes_per_token(config);
  EXPECT_EQ(default_call_tokens(config, 40960), kDefaultCallActivationBytes / per_token);
  EXPECT_LT(default_call_tokens(config, 40960), default_max_request_tokens(config));
  EXPECT_EQ(default_call_tokens(config, 100), 100);  // never more than a request may hold
  config.hidden_size = int64_t{1} << 40;  // absurd: still at least one token a call
  EXPECT_EQ(default_call_tokens(config, 40960), 1);
}

}  // namespace
}  // namespace sift
