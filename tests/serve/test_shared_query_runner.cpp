// The server's mis runner against the engine's own mis scoring (score_token_rows), bit for
// bit: with the query-KV cache off, missed, hit, too small to hold a query, and with rows
// split over several calls; and what the cache saves (a hit prefills only the items).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>

#include "../scoring/scoring_checkpoints.h"
#include "scoring/modes.h"
#include "serve/shared_query_runner.h"

namespace sift::serve {
namespace {

constexpr AnswerTokenIds kAnswer{5, 9};

struct Rows {
  std::vector<TokenIds> queries;  // row r uses queries[r % 3]
  std::vector<std::vector<TokenIds>> items;
  TokenRow row(size_t r) const { return {queries[r % queries.size()], items[r]}; }
};

Rows random_rows(uint64_t seed) {
  std::mt19937 rng(seed);
  auto ids = [&](int n) {
    TokenIds out(static_cast<size_t>(n));
    for (int32_t& id : out) id = static_cast<int32_t>(rng() % 1000);
    return out;
  };
  Rows rows;
  for (int q = 0; q < 3; ++q) rows.queries.push_back(ids(8 + 6 * q));
  for (int r = 0; r < 7; ++r) {
    std::vector<TokenIds> items;
    for (int i = 0, n = 1 + static_cast<int>(rng() % 12); i < n; ++i) items.push_back(ids(1 + static_cast<int>(rng() % 9)));
    rows.items.push_back(std::move(items));
  }
  return rows;
}

class SharedQueryRunner : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { model_ = Model::load(testing::write_scoring_test_checkpoint("qwen3", DType::F32)).release(); }
  static void TearDownTestSuite() {
    delete model_;
    testing::remove_scoring_test_checkpoints();
  }

  // The engine's mis scores of every row, one call per row: the reference bits.
  std::vector<std::vector<double>> reference(const Rows& rows) {
    Session session(*model_, 1);
    std::vector<std::vector<double>> out;
    for (size_t r = 0; r < rows.items.size(); ++r) {
      const TokenRow row = rows.row(r);
      out.push_back(score_token_rows(session, ScoringMode::Mis, kAnswer, {&row, 1}, {4096, 4096})[0].scores);
    }
    return out;
  }

  std::vector<std::shared_ptr<Job>> jobs_of(const Rows& rows, Readout readout = {}) {
    std::vector<std::shared_ptr<Job>> jobs;
    for (size_t r = 0; r < rows.items.size(); ++r) {
      auto job = std::make_shared<Job>();
      job->query = rows.queries[r % rows.queries.size()];
      job->items = rows.items[r];
      job->readout = readout;
      EXPECT_TRUE(job->claim());
      jobs.push_back(job);
    }
    return jobs;
  }

  void run(std::vector<std::shared_ptr<Job>>& jobs, QueryKvCache& cache, int64_t call_tokens) {
    std::vector<Job*> raw;
    for (auto& job : jobs) raw.push_back(job.get());
    Session session(*model_, 1);
    run_shared_query_jobs(session, raw, {{4096, call_tokens}, kAnswer, cache, metrics_});
    for (auto& job : jobs) EXPECT_TRUE(job->done()) << "every job is finished";
  }

  static std::vector<double> scores(const Job& job) {
    std::vector<double> out;
    for (const auto& s : job.result.scores) out.push_back(s.value());
    return out;
  }

  static inline Model* model_ = nullptr;
  Metrics metrics_;
};

TEST_F(SharedQueryRunner, SameBitsWithTheCacheOffMissedHitAndTooSmall) {
  const Rows rows = random_rows(1);
  const auto want = reference(rows);
  for (int64_t budget : {int64_t{0}, int64_t{1} << 30, int64_t{100}}) {  // off, large, smaller than any query
    for (int64_t call_tokens : {int64_t{4096}, int64_t{40}, int64_t{29}}) {  // one call, splits, about an item a call
      QueryKvCache cache("v1", budget);
      for (int round = 0; round < 2; ++round) {  // round 1 misses, round 2 hits (when the cache holds)
        auto jobs = jobs_of(rows);
        run(jobs, cache, call_tokens);
        for (size_t r = 0; r < jobs.size(); ++r)
          EXPECT_EQ(scores(*jobs[r]), want[r]) << "budget " << budget << ", call " << call_tokens << ", round " << round << ", row " << r;
      }
      const QueryKvCacheStats stats = cache.stats();
      EXPECT_EQ(stats.hits > 0, budget == (int64_t{1} << 30)) << budget;
      EXPECT_LE(stats.bytes, std::max<int64_t>(budget, 0));
    }
  }
}

TEST_F(SharedQueryRunner, AHitPrefillsOnlyTheItems) {
  const Rows rows = random_rows(2);
  QueryKvCache cache("v1", int64_t{1} << 30);
  auto first = jobs_of(rows);
  run(first, cache, 4096);
  auto second = jobs_of(rows);
  run(second, cache, 4096);
  for (size_t r = 0; r < rows.items.size(); ++r) {
    int64_t item_tokens = 0;
    for (const TokenIds& item : rows.items[r]) item_tokens += static_cast<int64_t>(item.size());
    EXPECT_EQ(second[r]->result.prefill_tokens, item_tokens) << "row " << r;
  }
  // In the first round, rows sharing a query in one call ran it once between them.
  int64_t first_total = 0, all_items = 0;
  for (size_t r = 0; r < rows.items.size(); ++r) {
    first_total += first[r]->result.prefill_tokens;
    for (const TokenIds& item : rows.items[r]) all_items += static_cast<int64_t>(item.size());
  }
  int64_t distinct_queries = 0;
  for (const TokenIds& q : rows.queries) distinct_queries += static_cast<int64_t>(q.size());
  EXPECT_EQ(first_total, all_items + distinct_queries);
}

TEST_F(SharedQueryRunner, ASplitRowRunsItsQueryOnceWithTheCache) {
  Rows rows = random_rows(3);
  rows.items.resize(1);
  rows.items[0].assign(12, TokenIds{1, 2, 3, 4, 5});
  const int64_t query_len = static_cast<int64_t>(rows.queries[0].size()), items = 12 * 5;
  const int64_t call_tokens = query_len + 15;  // three items a request: four requests
  QueryKvCache on("v1", int64_t{1} << 30), off("v1", 0);
  auto cached = jobs_of(rows), uncached = jobs_of(rows);
  run(cached, on, call_tokens);
  run(uncached, off, call_tokens);
  EXPECT_EQ(cached[0]->result.requests, 4);
  EXPECT_EQ(cached[0]->result.prefill_tokens, query_len + items);
  EXPECT_EQ(uncached[0]->result.prefill_tokens, 4 * query_len + items);
  EXPECT_EQ(scores(*cached[0]), scores(*uncached[0]));
  EXPECT_EQ(scores(*cached[0]), reference(rows)[0]);
}

TEST_F(SharedQueryRunner, LabelProbabilitiesAgreeWithPYes) {
  const Rows rows = random_rows(4);
  const auto want = reference(rows);
  QueryKvCache cache("v1", 0);
  auto softmax = jobs_of(rows, {Readout::Kind::LabelProbabilities, {kAnswer.yes, kAnswer.no}, true});
  run(softmax, cache, 4096);
  auto logprob = jobs_of(rows, {Readout::Kind::LabelProbabilities, {kAnswer.yes, kAnswer.no}, false});
  run(logprob, cache, 4096);
  for (size_t r = 0; r < rows.items.size(); ++r) {
    for (size_t i = 0; i < want[r].size(); ++i) {
      const std::vector<double>& s = softmax[r]->label_scores[i];
      const std::vector<double>& p = logprob[r]->label_scores[i];
      EXPECT_NEAR(s[0], want[r][i], 1e-12);
      EXPECT_NEAR(s[0] + s[1], 1.0, 1e-12);
      EXPECT_GT(p[0], 0);
      EXPECT_LT(p[0] + p[1], 1.0);  // the rest of the vocabulary has the remainder
      EXPECT_NEAR(p[0] / (p[0] + p[1]), want[r][i], 1e-9);
    }
  }
}

}  // namespace
}  // namespace sift::serve
