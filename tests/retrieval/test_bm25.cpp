// BM25 on a hand-made corpus: scores and order worked out by hand from the formula; the
// shared text tokenization.
#include <gtest/gtest.h>

#include <cmath>

#include "retrieval/bm25.h"
#include "retrieval/text_tokens.h"

using namespace sift::retrieval;

// Corpus (N = 4, lengths 2, 2, 1, 3, avgdl = 2):
//   d0: apache spark     d1: spark ar     d2: kubernetes     d3: apache kafka streams
// n(apache)=2, n(spark)=2, n(kubernetes)=1, n(ar)=1, n(kafka)=1, n(streams)=1
//   idf(n=2) = ln(1 + 2.5/2.5) = ln 2          = 0.6931471805599453
//   idf(n=1) = ln(1 + 3.5/1.5) = ln(10/3)      = 1.2039728043259361
// tf = 1 everywhere, k1 = 1.2, b = 0.75: term weight = idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * |d| / 2))
//   |d| = 1: idf * 2.2 / 1.75 ; |d| = 2: idf * 2.2 / 2.2 = idf ; |d| = 3: idf * 2.2 / 2.65
// Query "spark kubernetes":
//   d0 = ln 2 = 0.693147 ; d1 = ln 2 = 0.693147 ; d2 = ln(10/3) * 2.2 / 1.75 = 1.513565 ; d3 = 0
//   order: d2, d0, d1 (tie broken by index), d3
// Query "apache kafka":
//   d0 = ln 2 = 0.693147 ; d3 = (ln 2 + ln(10/3)) * 2.2 / 2.65 = 1.575 ; order d3, d0, d1, d2
namespace {

std::vector<std::vector<std::string>> corpus() {
  return {{"apache", "spark"}, {"spark", "ar"}, {"kubernetes"}, {"apache", "kafka", "streams"}};
}

}  // namespace

TEST(Bm25, IdfMatchesTheFormula) {
  Bm25Index index(corpus());
  EXPECT_DOUBLE_EQ(index.average_length(), 2.0);
  EXPECT_NEAR(index.idf("spark"), std::log(2.0), 1e-12);
  EXPECT_NEAR(index.idf("kubernetes"), std::log(10.0 / 3.0), 1e-12);
  EXPECT_EQ(index.idf("cobol"), 0.0);
}

TEST(Bm25, ScoresAndOrderMatchTheHandComputation) {
  Bm25Index index(corpus());
  std::vector<double> scores = index.score_all({"spark", "kubernetes"});
  EXPECT_NEAR(scores[0], 0.6931471805599453, 1e-12);
  EXPECT_NEAR(scores[1], 0.6931471805599453, 1e-12);
  EXPECT_NEAR(scores[2], 1.2039728043259361 * 2.2 / 1.75, 1e-12);
  EXPECT_EQ(scores[3], 0.0);

  std::vector<ScoredDocument> top = index.top_k({"spark", "kubernetes"}, 4);
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top[0].document, 2);
  EXPECT_EQ(top[1].document, 0);
  EXPECT_EQ(top[2].document, 1);
  EXPECT_EQ(top[3].document, 3);

  std::vector<ScoredDocument> kafka = index.top_k({"apache", "kafka"}, 2);
  ASSERT_EQ(kafka.size(), 2u);
  EXPECT_EQ(kafka[0].document, 3);
  EXPECT_NEAR(kafka[0].score, (std::log(2.0) + std::log(10.0 / 3.0)) * 2.2 / 2.65, 1e-12);
  EXPECT_EQ(kafka[1].document, 0);
}

TEST(Bm25, RepeatedQueryTermsCountOnceAndKIsClamped) {
  Bm25Index index(corpus());
  EXPECT_EQ(index.score_all({"spark"}), index.score_all({"spark", "spark", "spark"}));
  EXPECT_EQ(index.top_k({"spark"}, 100).size(), 4u);
  EXPECT_TRUE(index.top_k({"spark"}, 0).empty());
}

TEST(Bm25, TermFrequencySaturates) {
  // d0 says "spark" twice in a 2-term document: weight ln2 * 2 * 2.2 / (2 + 1.2) vs ln2 for d1.
  Bm25Index index({{"spark", "spark"}, {"spark", "ar"}});
  std::vector<double> scores = index.score_all({"spark"});
  double idf = std::log(1.0 + 0.5 / 2.5);
  EXPECT_NEAR(scores[0], idf * 2.0 * 2.2 / 3.2, 1e-12);
  EXPECT_NEAR(scores[1], idf, 1e-12);
}

TEST(TextTokens, SplitsLikeTheDocumentationSays) {
  EXPECT_EQ(tokenize("Node.js, C++ and C#; CI/CD 2019–2023"),
            (std::vector<std::string>{"node", "js", "c++", "and", "c#", "ci", "cd", "2019", "2023"}));
  EXPECT_EQ(retrieval_terms("3 years of Python with the team"),
            (std::vector<std::string>{"years", "python", "team"}));
  EXPECT_EQ(surface_key("  Apache   SPARK "), "apache spark");
}

TEST(Bm25SurfaceForms, EveryFormOfAnEntryRetrievesIt) {
  // Entry 1 is found by its alias as well as its name; retrieve() tokenizes free text.
  Bm25Index index = index_surface_forms({{"Apache Kafka"}, {"Apache Spark", "PySpark"}, {"Spark AR"}});
  EXPECT_EQ(index.n_documents(), 3);
  EXPECT_EQ(retrieve(index, "Wrote PySpark jobs", 1).at(0).document, 1);
  EXPECT_EQ(retrieve(index, "the apache spark cluster", 1).at(0).document, 1);
  EXPECT_EQ(retrieve(index, "KAFKA streams", 1).at(0).document, 0);
  EXPECT_EQ(retrieve(index, "anything", 5).size(), 3u);
}
