// The public API (include/sift/) as a program that links sift::sift meets it, with the bundled
// labeler: loading, scoring from contexts and from many threads on one Labeler (the same bits
// as one thread), tokenized rows, the query-KV cache, errors and invalid input. This file
// includes nothing but <sift/...> (its CMake target has no path to src/).
#include <gtest/gtest.h>

#include <sift/sift.h>

#include <bit>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace {

const std::filesystem::path kModel = std::filesystem::path(SIFT_SOURCE_DIR) / "models/default-labeler";

std::vector<sift::Row> some_rows(int n) {
  const char* words[] = {"python", "kubernetes", "sql", "nursing", "welding", "spark", "java", "cooking", "terraform"};
  std::vector<sift::Row> rows;
  for (int r = 0; r < n; ++r) {
    sift::Row row;
    for (int w = 0; w < 4 + r % 9; ++w) row.query += std::string(w ? " " : "") + words[(r * 5 + w) % 9];
    for (int i = 0; i < 1 + r % 5; ++i) row.items.push_back(words[(r + 2 * i) % 9]);
    rows.push_back(std::move(row));
  }
  return rows;
}

// Options with one field set (designated initializers would leave GCC's -Wextra warning about the others).
sift::ScoringOptions with_threshold(double threshold) {
  sift::ScoringOptions options;
  options.threshold = threshold;
  return options;
}
sift::ScoringOptions with_mode(sift::ScoringMode mode) {
  sift::ScoringOptions options;
  options.mode = mode;
  return options;
}
sift::ScoringOptions with_batch_tokens(int64_t tokens) {
  sift::ScoringOptions options;
  options.max_batch_tokens = tokens;
  return options;
}

std::vector<uint64_t> bits(const sift::RowResult& result) {
  std::vector<uint64_t> out;
  for (const std::optional<double>& score : result.scores) out.push_back(std::bit_cast<uint64_t>(score.value()));
  return out;
}

class Api : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Without the query-KV cache (on by default): each row runs whole, and a test can say so.
    labeler_ = new sift::Labeler(sift::Labeler::load(kModel, {.threads = 1, .query_cache_bytes = 0}));
    for (const sift::Row& row : rows_) alone_.push_back(bits(labeler_->score(row.query, row.items)));
  }
  static void TearDownTestSuite() { delete labeler_; }

  static inline sift::Labeler* labeler_ = nullptr;
  static inline const std::vector<sift::Row> rows_ = some_rows(40);
  static inline std::vector<std::vector<uint64_t>> alone_;  // each row scored alone
};

TEST_F(Api, VersionAndTheArtifact) {
  EXPECT_EQ(sift::version(), SIFT_EXPECTED_VERSION);
  EXPECT_TRUE(std::regex_match(std::string(sift::version()), std::regex(R"(\d+\.\d+\.\d+)")));
  EXPECT_FALSE(labeler_->version().empty());
  EXPECT_GT(labeler_->threshold(), 0.0);
  EXPECT_NE(labeler_->artifact_json().find("\"query_template\""), std::string::npos);
  EXPECT_EQ(labeler_->threads(), 1);
  const sift::ResolvedOptions resolved = labeler_->resolve(with_threshold(0.9));
  EXPECT_EQ(resolved.threshold, 0.9);
  EXPECT_GT(resolved.request_tokens, 0);
  EXPECT_GT(resolved.call_tokens, 0);
  EXPECT_LE(resolved.call_tokens, resolved.request_tokens);
}

TEST_F(Api, RowsScoreAsEachAloneWhateverPacksThem) {
  const std::vector<sift::RowResult> together = labeler_->score_rows(rows_);
  ASSERT_EQ(together.size(), rows_.size());
  for (size_t r = 0; r < rows_.size(); ++r) {
    EXPECT_TRUE(together[r].error.empty()) << together[r].error;
    EXPECT_EQ(bits(together[r]), alone_[r]) << "row " << r;
    for (size_t i = 0; i < together[r].scores.size(); ++i)
      EXPECT_EQ(*together[r].labels[i], *together[r].scores[i] >= labeler_->threshold());
    EXPECT_GT(together[r].prefill_tokens, 0);
  }
  const std::vector<sift::RowResult> small_calls = labeler_->score_rows(rows_, with_batch_tokens(100));
  for (size_t r = 0; r < rows_.size(); ++r) EXPECT_EQ(bits(small_calls[r]), alone_[r]) << "row " << r;
  for (sift::ScoringMode mode : {sift::ScoringMode::Independent, sift::ScoringMode::Prefix}) {
    const std::vector<sift::RowResult> other = labeler_->score_rows(rows_, with_mode(mode));
    for (size_t r = 0; r < rows_.size(); ++r) EXPECT_EQ(bits(other[r]), alone_[r]) << sift::scoring_mode_name(mode);
  }
}

TEST_F(Api, ThreadsSharingOneLabelerScoreAtOnceWithTheSameBits) {
  // Copies of a Labeler share its model; each thread scores on a context of the labeler's pool
  // or on its own; every row's bits are those of one thread.
  const sift::Labeler copy = *labeler_;
  std::vector<std::vector<std::vector<uint64_t>>> got(6);
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      std::vector<sift::RowResult> results;
      if (t % 3 == 0) {
        results = copy.score_rows(rows_);
      } else if (t % 3 == 1) {
        for (const sift::Row& row : rows_) results.push_back(labeler_->score(row.query, row.items));
      } else {
        sift::Context context = labeler_->context(1);
        results = context.score_rows(rows_, with_batch_tokens(100 + 50 * t));
      }
      for (const sift::RowResult& result : results) got[t].push_back(bits(result));
    });
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 6; ++t) EXPECT_EQ(got[t], alone_) << "thread " << t;
}

TEST_F(Api, TokenizedRowsScoreAsTextRows) {
  sift::Context context = labeler_->context();
  std::vector<sift::TokenizedRow> tokenized;
  for (const sift::Row& row : rows_) {
    tokenized.push_back(labeler_->tokenize(row.query, row.items));
    ASSERT_TRUE(tokenized.back().error.empty());
    ASSERT_EQ(tokenized.back().items.size(), row.items.size());
  }
  const std::vector<sift::RowResult> results = context.score_tokenized(tokenized);
  for (size_t r = 0; r < rows_.size(); ++r) EXPECT_EQ(bits(results[r]), alone_[r]) << "row " << r;
  EXPECT_EQ(labeler_->score_tokenized(tokenized)[3].scores, results[3].scores);
  EXPECT_THROW(context.score_tokenized(tokenized, with_mode(sift::ScoringMode::Generate)), sift::Error);
}

TEST_F(Api, TheQueryCacheRunsARepeatedQueryOnceAndChangesNoBit) {
  sift::LoadOptions load;
  load.threads = 1;
  load.query_cache_bytes = 64 << 20;
  const sift::Labeler cached = sift::Labeler::load(kModel, load);
  const sift::Row row = rows_[7];
  sift::Context context = cached.context();
  const sift::RowResult first = context.score(row.query, row.items);
  const sift::RowResult again = cached.score(row.query, {"welding"});  // another context, the same cache
  EXPECT_EQ(first.cached_tokens, 0);
  EXPECT_EQ(bits(first), alone_[7]);
  EXPECT_GT(again.cached_tokens, 0);
  EXPECT_EQ(again.prefill_tokens, labeler_->score(row.query, {"welding"}).prefill_tokens) << "a row's cost alone";
  EXPECT_EQ(bits(again), bits(labeler_->score(row.query, {"welding"})));
  EXPECT_EQ(labeler_->score(row.query, {"welding"}).cached_tokens, 0) << "no cache, nothing reused across calls";
}

TEST_F(Api, TheQueryCacheIsOnByDefaultWithTheCommandLinesBudget) {
  EXPECT_EQ(sift::LoadOptions{}.query_cache_bytes, sift::kDefaultQueryCacheBytes);
  EXPECT_EQ(sift::kDefaultQueryCacheBytes, int64_t{256} << 20) << "sift score, batch and serve's --kv-cache-mb 256";
  const sift::Labeler by_default = sift::Labeler::load(kModel, 1);
  const sift::Row row = rows_[5];
  EXPECT_EQ(by_default.score(row.query, row.items).cached_tokens, 0);
  const sift::RowResult again = by_default.score(row.query, {"welding"});
  EXPECT_GT(again.cached_tokens, 0);
  EXPECT_EQ(bits(again), bits(labeler_->score(row.query, {"welding"})));
}

TEST_F(Api, ErrorsSayWhatAndWhere) {
  try {
    sift::Labeler::load("/no/such/labeler");
    FAIL() << "loaded";
  } catch (const sift::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/labeler"), std::string::npos) << e.what();
  }
  EXPECT_THROW(labeler_->score_rows(rows_, with_threshold(1.5)), sift::OptionError);
  sift::ScoringOptions no_request;
  no_request.max_request_tokens = 0;
  EXPECT_THROW(labeler_->resolve(no_request), sift::OptionError);
  EXPECT_THROW(labeler_->context().score_rows(rows_, with_batch_tokens(-3)), sift::OptionError);

  // A bad row is its own error; the others are scored.
  const std::vector<sift::Row> rows = {rows_[0], {"\xff\xfe", {"python"}}, {std::string(20000, 'x') + " y", {"go"}},
                                       rows_[1]};
  const std::vector<sift::RowResult> results = labeler_->score_rows(rows);
  EXPECT_EQ(bits(results[0]), alone_[0]);
  EXPECT_NE(results[1].error.find("UTF-8"), std::string::npos) << results[1].error;
  EXPECT_NE(results[2].error.find("tokens"), std::string::npos) << results[2].error;
  EXPECT_TRUE(results[1].scores.empty() && results[2].scores.empty());
  EXPECT_EQ(bits(results[3]), alone_[1]);
  EXPECT_THROW(labeler_->score("\xff", {"a"}), sift::Error);
  EXPECT_TRUE(labeler_->tokenize("\xff", std::vector<std::string>{"a"}).error.find("UTF-8") != std::string::npos);
  // No items: nothing to score, no error.
  const sift::RowResult none = labeler_->score("a profile", {});
  EXPECT_TRUE(none.scores.empty());
  EXPECT_EQ(none.prefill_tokens, 0);
}

TEST_F(Api, GenerateModeDecidesFromText) {
  sift::Context context = labeler_->context();
  const sift::RowResult result = context.score(rows_[2].query, rows_[2].items, with_mode(sift::ScoringMode::Generate));
  EXPECT_EQ(result.scores.size(), rows_[2].items.size());
  EXPECT_EQ(result.requests, 1);
  ASSERT_TRUE(result.generation.has_value());
  EXPECT_GT(result.generation->generated_tokens, 0);
  for (const std::optional<double>& score : result.scores) {
    if (score) {
      EXPECT_TRUE(*score == 0.0 || *score == 1.0);
    }
  }
}

}  // namespace
