// The determinism contract of the forward pass, bitwise: an item's logits do not depend on
// the other items packed with it, their order, or whether the query comes from a KV cache
// (prefix mode) or the same pass (multi-item), or a separate [q; c] prompt, nor on the thread
// count or the CPU's register tile.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>
#include <thread>

#include "core/parallel.h"
#include "../kernels/tile_isas.h"
#include "golden_checkpoints.h"
#include "model/model.h"
#include "model/session.h"

namespace sift {
namespace {

struct Item {
  std::vector<int32_t> ids;
};

// Logits (two vocab rows) of each item's last token, all items packed after the query.
std::vector<std::vector<float>> multi_item_logits(Session& session, const std::vector<int32_t>& query,
                                                  const std::vector<Item>& items, const std::vector<int32_t>& vocab) {
  ForwardRequest request;
  std::vector<int32_t> ids = query, positions(query.size()), rows;
  std::iota(positions.begin(), positions.end(), 0);
  const auto q_len = static_cast<int32_t>(query.size());
  std::vector<Segment> segments = {{0, q_len, 0, 0}};
  for (const Item& item : items) {
    const auto start = static_cast<int32_t>(ids.size());
    segments.push_back({start, static_cast<int32_t>(item.ids.size()), 0, q_len});
    for (size_t t = 0; t < item.ids.size(); ++t) {
      ids.push_back(item.ids[t]);
      positions.push_back(q_len + static_cast<int32_t>(t));
    }
    rows.push_back(static_cast<int32_t>(ids.size()) - 1);
  }
  request.ids = ids;
  request.positions = positions;
  request.segments = segments;
  request.logit_rows = rows;
  request.vocab_rows = vocab;
  const LogitsView result = session.forward(request);
  std::vector<std::vector<float>> out;
  for (int64_t r = 0; r < result.n_rows; ++r) out.emplace_back(result.row(r).begin(), result.row(r).end());
  session.truncate(0);
  return out;
}

std::vector<std::vector<float>> multi_item_logits(const Model& model, const std::vector<int32_t>& query,
                                                  const std::vector<Item>& items, const std::vector<int32_t>& vocab) {
  Session session(model);
  return multi_item_logits(session, query, items, vocab);
}

class Determinism : public ::testing::TestWithParam<std::string> {};

TEST_P(Determinism, ItemLogitsAreBitwiseInvariant) {
  auto model = Model::load(testing::golden_root() / GetParam());
  const int32_t vocab_size = static_cast<int32_t>(model->config().vocab_size);
  std::mt19937 rng(11);
  std::uniform_int_distribution<int32_t> token(0, vocab_size - 1);
  std::uniform_int_distribution<int> length(1, 9);
  std::vector<int32_t> query(23);
  for (auto& t : query) t = token(rng);
  std::vector<Item> items(12);
  for (auto& item : items) {
    item.ids.resize(length(rng));
    for (auto& t : item.ids) t = token(rng);
  }
  const std::vector<int32_t> vocab = {3, 5};
  const auto packed = multi_item_logits(*model, query, items, vocab);
  // 0. The thread count changes nothing.
  for (int threads : {1, 2, 3}) {
    set_n_threads(threads);
    EXPECT_EQ(multi_item_logits(*model, query, items, vocab), packed) << threads << " threads";
  }
  set_n_threads(2);
  // ... nor does the register tile the CPU has (AVX2, AVX-512).
  testing::for_each_tile_isa([&] { EXPECT_EQ(multi_item_logits(*model, query, items, vocab), packed); });

  // 1. Each item alone, as its own [q; c] prompt: a plain causal sequence.
  for (size_t i = 0; i < items.size(); ++i) {
    const auto alone = multi_item_logits(*model, query, {items[i]}, vocab);
    EXPECT_EQ(alone[0], packed[i]) << "item " << i << " alone";
  }
  // 2. Shuffled order and a subset.
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  for (int round = 0; round < 3; ++round) {
    std::shuffle(order.begin(), order.end(), rng);
    const size_t n = 1 + rng() % items.size();
    std::vector<Item> subset;
    for (size_t k = 0; k < n; ++k) subset.push_back(items[order[k]]);
    const auto logits = multi_item_logits(*model, query, subset, vocab);
    for (size_t k = 0; k < n; ++k) EXPECT_EQ(logits[k], packed[order[k]]) << "round " << round;
  }
  // 3. Prefix mode: the query into a session's KV cache once, each item against it.
  Session session(*model);
  std::vector<int32_t> q_positions(query.size());
  std::iota(q_positions.begin(), q_positions.end(), 0);
  const auto q_len = static_cast<int32_t>(query.size());
  const std::vector<Segment> query_segment = {{0, q_len, 0, 0}};
  session.forward({query, q_positions, query_segment, {}, vocab});
  for (size_t i = 0; i < items.size(); ++i) {
    const auto len = static_cast<int32_t>(items[i].ids.size());
    std::vector<int32_t> positions(len);
    std::iota(positions.begin(), positions.end(), q_len);
    const std::vector<int32_t> last = {len - 1};
    const std::vector<Segment> item_segment = {{0, len, 0, q_len}};
    const LogitsView r = session.forward({items[i].ids, positions, item_segment, last, vocab});
    EXPECT_EQ(std::vector<float>(r.row(0).begin(), r.row(0).end()), packed[i]) << "prefix item " << i;
    session.truncate(q_len);
  }
  // 4. The query's context taken from a copy of its keys placed after unrelated cached keys:
  //    a context range anywhere in the key space gives the same bits.
  const KvBlock query_kv = session.copy_keys({0, q_len});
  Session other(*model);
  std::vector<int32_t> noise = {1, 2, 3, 4, 5}, noise_positions = {0, 1, 2, 3, 4};
  const std::vector<Segment> noise_segment = {{0, 5, 0, 0}};
  other.forward({noise, noise_positions, noise_segment, {}, vocab});
  other.append_keys(query_kv);
  for (size_t i = 0; i < items.size(); ++i) {
    const auto len = static_cast<int32_t>(items[i].ids.size());
    std::vector<int32_t> positions(len);
    std::iota(positions.begin(), positions.end(), q_len);
    const std::vector<int32_t> last = {len - 1};
    const std::vector<Segment> item_segment = {{0, len, 5, 5 + q_len}};
    const LogitsView r = other.forward({items[i].ids, positions, item_segment, last, vocab});
    EXPECT_EQ(std::vector<float>(r.row(0).begin(), r.row(0).end()), packed[i]) << "moved prefix item " << i;
    other.truncate(5 + q_len);
  }
}

// Sessions on one model at once, each with its own thread count, give the bits of one.
TEST_P(Determinism, ConcurrentSessionsGiveTheSameBits) {
  auto model = Model::load(testing::golden_root() / GetParam());
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> token(0, static_cast<int32_t>(model->config().vocab_size) - 1);
  std::vector<int32_t> query(17);
  for (auto& t : query) t = token(rng);
  std::vector<Item> items(6);
  for (auto& item : items) {
    item.ids.resize(1 + rng() % 7);
    for (auto& t : item.ids) t = token(rng);
  }
  const std::vector<int32_t> vocab = {3, 5};
  const auto expected = multi_item_logits(*model, query, items, vocab);
  std::vector<std::vector<std::vector<float>>> got(4);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      Session session(*model, 1 + k % 2);
      for (int repeat = 0; repeat < 3; ++repeat) got[k] = multi_item_logits(session, query, items, vocab);
    });
  for (std::thread& t : threads) t.join();
  for (int k = 0; k < 4; ++k) EXPECT_EQ(got[k], expected) << "session " << k;
}

INSTANTIATE_TEST_SUITE_P(AllCheckpoints, Determinism, ::testing::ValuesIn(testing::golden_cases()),
                         [](const auto& info) { return info.param; });

TEST(ForwardRequestChecks, BadRequestsAreClearErrors) {
  auto model = Model::load(testing::golden_root() / "qwen3_f32");
  const std::vector<int32_t> ids = {1, 2, 3}, positions = {0, 1, 2}, row = {2};
  const std::vector<int32_t> bad_id = {1, 999999, 3}, bad_row = {3};
  auto message = [&](ForwardRequest r) {
    try {
      model->forward(r);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::vector<Segment> whole = {{0, 3, 0, 0}}, short_cover = {{0, 2, 0, 0}};
  const std::vector<Segment> context_after = {{0, 1, 0, 0}, {1, 2, 0, 2}};
  EXPECT_NE(message({bad_id, positions, whole, row, {}}).find("outside the vocabulary"), std::string::npos);
  EXPECT_NE(message({ids, positions, short_cover, row, {}}).find("segments cover 2 of the 3"), std::string::npos);
  EXPECT_NE(message({ids, positions, context_after, row, {}}).find("context keys [0, 2)"), std::string::npos);
  EXPECT_NE(message({ids, positions, whole, bad_row, {}}).find("logit row 3"), std::string::npos);
}

}  // namespace
}  // namespace sift
