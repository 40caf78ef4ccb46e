// The determinism contract of the forward pass, bitwise: an item's logits do not depend on
// the other items packed with it, their order, or whether the query comes from a KV cache
// (prefix mode) or the same pass (multi-item), or a separate [q; c] prompt.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>

#include "core/parallel.h"
#include "golden_checkpoints.h"
#include "model/model.h"

namespace sift {
namespace {

struct Item {
  std::vector<int32_t> ids;
};

// Logits (two vocab rows) of each item's last token, all items packed after the query.
std::vector<std::vector<float>> multi_item_logits(const Model& model, const std::vector<int32_t>& query,
                                                  const std::vector<Item>& items, const std::vector<int32_t>& vocab) {
  ForwardRequest request;
  std::vector<int32_t> ids = query, positions(query.size()), rows;
  std::iota(positions.begin(), positions.end(), 0);
  const auto q_len = static_cast<int32_t>(query.size());
  request.segments.push_back({0, q_len, 0});
  for (const Item& item : items) {
    const auto start = static_cast<int32_t>(ids.size());
    request.segments.push_back({start, static_cast<int32_t>(item.ids.size()), q_len});
    for (size_t t = 0; t < item.ids.size(); ++t) {
      ids.push_back(item.ids[t]);
      positions.push_back(q_len + static_cast<int32_t>(t));
    }
    rows.push_back(static_cast<int32_t>(ids.size()) - 1);
  }
  request.ids = ids;
  request.positions = positions;
  request.logit_rows = rows;
  request.vocab_rows = vocab;
  const ForwardResult result = model.forward(request);
  std::vector<std::vector<float>> out;
  for (int64_t r = 0; r < result.n_rows; ++r) out.emplace_back(result.row(r).begin(), result.row(r).end());
  return out;
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
  // 3. Prefix mode: the query into a KV cache once, each item against it.
  KvCache cache(model->config(), 64);
  std::vector<int32_t> q_positions(query.size());
  std::iota(q_positions.begin(), q_positions.end(), 0);
  const auto q_len = static_cast<int32_t>(query.size());
  model->forward({query, q_positions, {{0, q_len, 0}}, {}, vocab}, &cache);
  for (size_t i = 0; i < items.size(); ++i) {
    const auto len = static_cast<int32_t>(items[i].ids.size());
    std::vector<int32_t> positions(len);
    std::iota(positions.begin(), positions.end(), q_len);
    const std::vector<int32_t> last = {len - 1};
    const ForwardResult r = model->forward({items[i].ids, positions, {{0, len, q_len}}, last, vocab}, &cache);
    cache.truncate(q_len);
    EXPECT_EQ(std::vector<float>(r.row(0).begin(), r.row(0).end()), packed[i]) << "prefix item " << i;
  }
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
  EXPECT_NE(message({bad_id, positions, {{0, 3, 0}}, row, {}}).find("outside the vocabulary"), std::string::npos);
  EXPECT_NE(message({ids, positions, {{0, 2, 0}}, row, {}}).find("segments cover 2 of the 3"), std::string::npos);
  EXPECT_NE(message({ids, positions, {{0, 1, 0}, {1, 2, 2}}, row, {}}).find("context_len"), std::string::npos);
  EXPECT_NE(message({ids, positions, {{0, 3, 0}}, bad_row, {}}).find("logit row 3"), std::string::npos);
}

}  // namespace
}  // namespace sift
