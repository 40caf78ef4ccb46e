// The exactness contract (docs/scoring-contract.md): an item's score is a pure function of
// (model, query, item), bitwise: whatever the other items, their order, the request split,
// the other rows sharing a forward call, the call budget, the thread count, the session, or
// which of mis / independent / prefix computed it. Checked on random checkpoints of Qwen3, Qwen2
// and Llama with F32 and BF16 weights, and against an independent float64 single-prompt
// reference (<= 1e-5 in probability). BF16 weights stay 16-bit in memory (auto) and give the
// bits of the same values held in F32. Within q8 (int8 weight blocks, sift/weight_storage.h) and
// within BF16 compute (bf16, under each kernel this CPU has) every invariance holds the same
// way; their scores are near, not equal to, the reference's. Without BF16 compute (a CPU
// without it, or switched off), bf16 weights are multiplied in F32: the bits of auto.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <random>
#include <optional>
#include <string_view>
#include <thread>

#include "kernels/gemm_bf16.h"
#include "model/model.h"
#include "reference_forward.h"
#include "model/session.h"
#include "scoring/modes.h"
#include "scoring/readout.h"
#include "scoring_checkpoints.h"

namespace sift {
namespace {

struct Variant {
  const char* architecture;  // short name
  DType dtype;
  WeightStorage storage = WeightStorage::Auto;
  Bf16Kernel bf16_kernel = Bf16Kernel::None;  // bf16 storage: the BF16 compute kernel (None: F32 compute)
};

std::string variant_name(const ::testing::TestParamInfo<Variant>& info) {
  std::string name = std::string(info.param.architecture) + "_" + std::string(dtype_name(info.param.dtype));
  if (info.param.storage != WeightStorage::Auto) name += "_" + std::string(weight_storage_name(info.param.storage));
  if (info.param.storage == WeightStorage::BF16) {
    name += "_";
    for (const char c : std::string_view(bf16_kernel_name(info.param.bf16_kernel))) name += c == '-' ? '_' : c;
  }
  return name;
}

struct Row {
  TokenIds query;
  std::vector<TokenIds> items;
};

Row random_row(std::mt19937& rng, int64_t query_len, int64_t n_items, int64_t max_item_len, int64_t vocab) {
  Row row;
  for (int64_t t = 0; t < query_len; ++t) row.query.push_back(static_cast<int32_t>(rng() % vocab));
  for (int64_t i = 0; i < n_items; ++i) {
    TokenIds item(1 + rng() % max_item_len);
    for (int32_t& id : item) id = static_cast<int32_t>(rng() % vocab);
    row.items.push_back(std::move(item));
  }
  return row;
}

uint64_t bits(double x) { return std::bit_cast<uint64_t>(x); }

class Exactness : public ::testing::TestWithParam<Variant> {
 protected:
  static constexpr int64_t kQueryLen = 37, kItems = 14, kMaxItemLen = 9;
  static constexpr int64_t kUnlimited = 1 << 20;

  // Scores rows in one session; limit = --max-request-tokens, call_budget = --max-batch-tokens.
  std::vector<ItemScores> score_rows(ScoringMode mode, const std::vector<Row>& rows, int64_t limit = kUnlimited,
                                     int64_t call_budget = kUnlimited, int threads = 0) const {
    std::vector<TokenRow> token_rows;
    for (const Row& row : rows) token_rows.push_back({row.query, row.items});
    Session session(*model_, threads);
    return score_token_rows(session, mode, answer_, token_rows, {limit, call_budget});
  }
  ItemScores score(ScoringMode mode, const std::vector<TokenIds>& items, int64_t limit = kUnlimited) const {
    return score_rows(mode, {Row{row_.query, items}}, limit)[0];
  }
  bool quantized() const { return GetParam().storage == WeightStorage::Q8; }
  bool bf16_compute() const {
    return GetParam().storage == WeightStorage::BF16 && GetParam().bf16_kernel != Bf16Kernel::None;
  }

  void SetUp() override {
    if (GetParam().storage == WeightStorage::BF16) {  // the kernel the model is loaded and run with
      if (!bf16_kernel_available(GetParam().bf16_kernel))
        GTEST_SKIP() << "no " << bf16_kernel_name(GetParam().bf16_kernel) << " BF16 compute on this CPU";
      saved_kernel_ = bf16_kernel();
      set_bf16_kernel(GetParam().bf16_kernel);
    }
    dir_ = testing::write_scoring_test_checkpoint(GetParam().architecture, GetParam().dtype);
    model_ = Model::load(dir_, GetParam().storage);
    std::mt19937 rng(1234 + testing::architecture_index(GetParam().architecture));
    row_ = random_row(rng, kQueryLen, kItems, kMaxItemLen, model_->config().vocab_size);
    answer_ = {static_cast<int32_t>(rng() % 1024), static_cast<int32_t>(rng() % 1024)};
    if (answer_.yes == answer_.no) answer_.no = (answer_.yes + 1) % 1024;
    // Baseline: each item alone, in its own request, nothing else present.
    for (const TokenIds& item : row_.items)
      alone_.push_back(score(ScoringMode::Independent, {item}).scores[0]);
  }
  void TearDown() override {
    if (saved_kernel_) set_bf16_kernel(*saved_kernel_);
    testing::remove_scoring_test_checkpoints();
  }

  // Every score of `got` (items given by their indices in row_) equals the alone score bitwise.
  void expect_same_bits(const std::vector<double>& got, const std::vector<size_t>& indices, const std::string& what) {
    ASSERT_EQ(got.size(), indices.size()) << what;
    for (size_t k = 0; k < got.size(); ++k)
      EXPECT_EQ(bits(got[k]), bits(alone_[indices[k]]))
          << what << ": item " << indices[k] << " scored " << got[k] << " vs " << alone_[indices[k]] << " alone";
  }

  std::vector<TokenIds> pick(const std::vector<size_t>& indices) const {
    std::vector<TokenIds> items;
    for (size_t i : indices) items.push_back(row_.items[i]);
    return items;
  }

  std::optional<Bf16Kernel> saved_kernel_;
  std::filesystem::path dir_;
  std::unique_ptr<Model> model_;
  Row row_;
  AnswerTokenIds answer_;
  std::vector<double> alone_;
};

std::vector<size_t> iota_indices(size_t n) {
  std::vector<size_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST_P(Exactness, ScoresAreNotAllTheSame) {
  // Guards the tests below against a degenerate model (every item scoring alike).
  std::vector<double> sorted = alone_;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_GT(std::unique(sorted.begin(), sorted.end()) - sorted.begin(), kItems / 2);
}

TEST_P(Exactness, MultiItemEqualsEachItemAlone) {
  ItemScores mis = score(ScoringMode::Mis, row_.items);
  expect_same_bits(mis.scores, iota_indices(kItems), "mis, all items in one request");
  EXPECT_EQ(mis.requests, 1);
  int64_t expected_tokens = kQueryLen;
  for (const TokenIds& item : row_.items) expected_tokens += static_cast<int64_t>(item.size());
  EXPECT_EQ(mis.prefill_tokens, expected_tokens);
}

TEST_P(Exactness, OrderAndCompanionsDoNotMatter) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<size_t> order = iota_indices(kItems);
    std::shuffle(order.begin(), order.end(), rng);
    order.resize(1 + rng() % kItems);  // a random subset, in random order
    ItemScores mis = score(ScoringMode::Mis, pick(order));
    expect_same_bits(mis.scores, order, "mis, permuted subset " + std::to_string(trial));
  }
}

TEST_P(Exactness, RequestSplitsDoNotMatter) {
  int64_t items_len = 0;
  for (const TokenIds& item : row_.items) items_len += static_cast<int64_t>(item.size());
  for (int64_t limit : {kQueryLen + kMaxItemLen, kQueryLen + items_len / 3, kQueryLen + items_len / 2,
                        kQueryLen + items_len - 1}) {
    ItemScores mis = score(ScoringMode::Mis, row_.items, limit);
    EXPECT_GT(mis.requests, 1) << "limit " << limit << " should split the row";
    expect_same_bits(mis.scores, iota_indices(kItems), "mis, --max-request-tokens " + std::to_string(limit));
  }
}

TEST_P(Exactness, AllThreeModesAgree) {
  ItemScores independent = score(ScoringMode::Independent, row_.items);
  expect_same_bits(independent.scores, iota_indices(kItems), "independent, one batched call");
  ItemScores independent_split = score(ScoringMode::Independent, row_.items, 2 * kQueryLen + 20);
  expect_same_bits(independent_split.scores, iota_indices(kItems), "independent, small batches");
  ItemScores prefix = score(ScoringMode::Prefix, row_.items);
  expect_same_bits(prefix.scores, iota_indices(kItems), "prefix");
  EXPECT_EQ(independent.requests, kItems);
  EXPECT_EQ(prefix.requests, kItems);
  ItemScores mis = score(ScoringMode::Mis, row_.items);
  // Cost: independent repeats the query per item; prefix and mis compute it once.
  EXPECT_EQ(independent.prefill_tokens - mis.prefill_tokens, (kItems - 1) * kQueryLen);
  EXPECT_EQ(prefix.prefill_tokens, mis.prefill_tokens);
}

// Several rows in one plan: random subsets of the items under random queries-as-rows (the
// same query, so every score has its alone baseline), random call budgets, thread counts
// and modes. Each row's scores are the alone scores, whatever shares its calls.
TEST_P(Exactness, RowsSharingCallsDoNotMatter) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<Row> rows;
    std::vector<std::vector<size_t>> picked;
    for (int r = 0, n_rows = 2 + static_cast<int>(rng() % 5); r < n_rows; ++r) {
      std::vector<size_t> order = iota_indices(kItems);
      std::shuffle(order.begin(), order.end(), rng);
      order.resize(1 + rng() % kItems);
      rows.push_back({row_.query, pick(order)});
      picked.push_back(order);
    }
    const ScoringMode mode = std::array{ScoringMode::Mis, ScoringMode::Independent, ScoringMode::Prefix}[trial % 3];
    const int64_t budget = kQueryLen + kMaxItemLen + static_cast<int64_t>(rng() % 300);
    const int threads = 1 + trial % 3;
    const std::vector<ItemScores> got = score_rows(mode, rows, kUnlimited, budget, threads);
    ASSERT_EQ(got.size(), rows.size());
    for (size_t r = 0; r < rows.size(); ++r)
      expect_same_bits(got[r].scores, picked[r],
                       "trial " + std::to_string(trial) + " row " + std::to_string(r) + " budget " +
                           std::to_string(budget) + " threads " + std::to_string(threads));
  }
}

TEST_P(Exactness, ShortRowsShareCalls) {
  // The budget packs rows into calls: the cost per row is the row's own, however packed.
  std::vector<Row> rows(4, Row{row_.query, pick({0, 1, 2})});
  const auto packed = score_rows(ScoringMode::Mis, rows);
  int64_t row_tokens = kQueryLen;
  for (const TokenIds& item : rows[0].items) row_tokens += static_cast<int64_t>(item.size());
  const auto one_per_call = score_rows(ScoringMode::Mis, rows, kUnlimited, row_tokens);
  for (size_t r = 0; r < rows.size(); ++r) {
    EXPECT_EQ(packed[r].requests, 1);
    EXPECT_EQ(packed[r].prefill_tokens, one_per_call[r].prefill_tokens);
    expect_same_bits(packed[r].scores, {0, 1, 2}, "packed row " + std::to_string(r));
  }
}

TEST_P(Exactness, ConcurrentSessionsGiveTheSameBits) {
  std::vector<Row> rows = {Row{row_.query, row_.items}, Row{row_.query, pick({3, 1})}};
  std::vector<std::vector<ItemScores>> got(3);
  std::vector<std::thread> threads;
  for (int k = 0; k < 3; ++k)
    threads.emplace_back([&, k] { got[k] = score_rows(ScoringMode::Mis, rows, kUnlimited, 60 + 40 * k, 1 + k % 2); });
  for (std::thread& t : threads) t.join();
  for (int k = 0; k < 3; ++k) {
    expect_same_bits(got[k][0].scores, iota_indices(kItems), "session " + std::to_string(k) + " row 0");
    expect_same_bits(got[k][1].scores, {3, 1}, "session " + std::to_string(k) + " row 1");
  }
}

TEST_P(Exactness, AgreesWithTheFloat64Reference) {
  testing::ReferenceForward reference(dir_);
  const std::vector<int32_t> vocab = {answer_.yes, answer_.no};
  double max_diff = 0;
  int n_not_saturated = 0;
  for (int64_t i = 0; i < kItems; ++i) {
    TokenIds prompt = row_.query;
    prompt.insert(prompt.end(), row_.items[i].begin(), row_.items[i].end());
    const std::vector<double> logits = reference.last_logits(prompt, vocab);
    const double expected = 1.0 / (1.0 + std::exp(logits[1] - logits[0]));
    max_diff = std::max(max_diff, std::abs(expected - alone_[i]));
    n_not_saturated += expected > 0.01 && expected < 0.99;
  }
  if (quantized()) {
    // q8 rounds weights and activations to 8 bits per block: near the reference, not at 1e-5
    // (were it within 1e-5, the weights would not have been quantized).
    EXPECT_LE(max_diff, 0.05);
    EXPECT_GT(max_diff, 1e-5);
  } else if (bf16_compute()) {
    // BF16 compute rounds the activations to 8 significant bits at every product (and the
    // weights, for an F32 file): near the reference, not at 1e-5.
    EXPECT_LE(max_diff, 0.01);
    EXPECT_GT(max_diff, 1e-5);
  } else if (GetParam().storage == WeightStorage::BF16 && GetParam().dtype != DType::BF16) {
    EXPECT_LE(max_diff, 0.01);  // F32 compute of weights rounded to BF16
  } else {
    EXPECT_LE(max_diff, 1e-5);
  }
  EXPECT_GE(n_not_saturated, 3) << "too few informative scores for the comparison to mean much";
}

TEST_P(Exactness, TheReferenceSeesWhatAPlainPackedPromptGetsWrong) {
  // Without the item mask and restarted positions, item 1 would see item 0: the float64
  // reference of [q; c1] must then disagree with a plain causal [q; c0; c1] by far more than
  // the tolerance, so the agreement above is evidence and not an accident.
  testing::ReferenceForward reference(dir_);
  const std::vector<int32_t> vocab = {answer_.yes, answer_.no};
  TokenIds leaky = row_.query;
  for (int k : {0, 1}) leaky.insert(leaky.end(), row_.items[k].begin(), row_.items[k].end());
  const std::vector<double> wrong = reference.last_logits(leaky, vocab);
  const double p_wrong = 1.0 / (1.0 + std::exp(wrong[1] - wrong[0]));
  EXPECT_GT(std::abs(p_wrong - alone_[1]), 1e-4);
}

// A 16-bit file's matrices stay 16-bit under auto and are widened inside the kernels: the
// scores are those of the same file held in F32, bit for bit, at about half the memory.
TEST(WeightStorage, SixteenBitWeightsInMemoryGiveTheBitsOfF32) {
  for (const auto& [architecture, dtype] : {std::pair{"qwen3", DType::BF16}, std::pair{"qwen2", DType::BF16},
                                            std::pair{"llama", DType::BF16}, std::pair{"qwen3", DType::F16}}) {
    const std::string what = std::string(architecture) + " " + std::string(dtype_name(dtype));
    const std::filesystem::path dir = testing::write_scoring_test_checkpoint(architecture, dtype);
    const std::unique_ptr<Model> narrow = Model::load(dir), wide = Model::load(dir, WeightStorage::F32);
    EXPECT_LT(narrow->weights().bytes(), wide->weights().bytes() * 0.55) << what;
    std::mt19937 rng(5);
    const Row row = random_row(rng, 30, 12, 8, narrow->config().vocab_size);
    const std::vector<TokenRow> rows = {{row.query, row.items}};
    const AnswerTokenIds answer{3, 17};
    std::vector<std::vector<double>> scores;
    for (const Model* model : {narrow.get(), wide.get()}) {
      Session session(*model);
      scores.push_back(score_token_rows(session, ScoringMode::Mis, answer, rows, {1 << 20, 1 << 20})[0].scores);
    }
    ASSERT_EQ(scores[0].size(), row.items.size());
    for (size_t i = 0; i < row.items.size(); ++i)
      EXPECT_EQ(bits(scores[0][i]), bits(scores[1][i])) << what << " item " << i;
  }
  testing::remove_scoring_test_checkpoints();
}

// Without BF16 compute (a CPU without it, or SIFT_BF16_COMPUTE=off), bf16 keeps a BF16 file's
// weights as auto does and multiplies them in F32: auto's bits, and it says why once.
TEST(WeightStorage, Bf16WithoutBf16ComputeGivesTheBitsOfAuto) {
  const Bf16Kernel saved = bf16_kernel();
  set_bf16_kernel(Bf16Kernel::None);
  const std::filesystem::path dir = testing::write_scoring_test_checkpoint("qwen3", DType::BF16);
  const std::unique_ptr<Model> fallback = Model::load(dir, WeightStorage::BF16), automatic = Model::load(dir);
  set_bf16_kernel(saved);
  std::mt19937 rng(6);
  const Row row = random_row(rng, 30, 12, 8, automatic->config().vocab_size);
  const std::vector<TokenRow> rows = {{row.query, row.items}};
  const AnswerTokenIds answer{3, 17};
  std::vector<std::vector<double>> scores;
  for (const Model* model : {fallback.get(), automatic.get()}) {
    Session session(*model);
    scores.push_back(score_token_rows(session, ScoringMode::Mis, answer, rows, {1 << 20, 1 << 20})[0].scores);
  }
  for (size_t i = 0; i < row.items.size(); ++i) EXPECT_EQ(bits(scores[0][i]), bits(scores[1][i])) << "item " << i;
  // With BF16 compute the same file scores differently (activations rounded to BF16).
  for (const Bf16Kernel kernel : {Bf16Kernel::Avx512Bf16, Bf16Kernel::Amx}) {
    if (!bf16_kernel_available(kernel)) continue;
    set_bf16_kernel(kernel);
    const std::unique_ptr<Model> computed = Model::load(dir, WeightStorage::BF16);
    Session session(*computed);
    const std::vector<double> got = score_token_rows(session, ScoringMode::Mis, answer, rows, {1 << 20, 1 << 20})[0].scores;
    size_t differ = 0;
    for (size_t i = 0; i < got.size(); ++i) differ += bits(got[i]) != bits(scores[1][i]);
    EXPECT_GT(differ, 0u) << bf16_kernel_name(kernel);
    set_bf16_kernel(saved);
  }
  testing::remove_scoring_test_checkpoints();
}

INSTANTIATE_TEST_SUITE_P(AllArchitectures, Exactness,
                         ::testing::Values(Variant{"qwen3", DType::F32}, Variant{"qwen3", DType::BF16},
                                           Variant{"qwen2", DType::F32}, Variant{"qwen2", DType::BF16},
                                           Variant{"llama", DType::F32}, Variant{"llama", DType::BF16},
                                           Variant{"qwen3", DType::F16},
                                           Variant{"qwen3", DType::F32, WeightStorage::Q8},
                                           Variant{"qwen2", DType::BF16, WeightStorage::Q8},
                                           Variant{"llama", DType::F32, WeightStorage::Q8},
                                           Variant{"qwen3", DType::BF16, WeightStorage::BF16, Bf16Kernel::Amx},
                                           Variant{"qwen2", DType::BF16, WeightStorage::BF16, Bf16Kernel::Avx512Bf16},
                                           Variant{"llama", DType::F32, WeightStorage::BF16, Bf16Kernel::Amx},
                                           Variant{"qwen3", DType::F32, WeightStorage::BF16, Bf16Kernel::Avx512Bf16},
                                           Variant{"qwen3", DType::BF16, WeightStorage::BF16, Bf16Kernel::None}),
                         variant_name);

}  // namespace
}  // namespace sift
