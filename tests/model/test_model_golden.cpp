// The forward pass against the independent PyTorch float64 reference
// (tests/golden/make_golden.py): every golden probe (a causal prompt, a long one past the
// Llama 3 rope-scaling band, a multi-item layout), every architecture and dtype;
// max |sift - reference| <= 1e-4 * max(1, max |logit|).
#include <gtest/gtest.h>

#include <cmath>

#include "golden_checkpoints.h"
#include "model/model.h"

namespace sift {
namespace {

class GoldenLogits : public ::testing::TestWithParam<std::string> {};

TEST(GoldenCheckpoints, AllArchitecturesAndDtypesArePresent) {
  EXPECT_EQ(testing::golden_cases_on_disk(), testing::golden_cases()) << "under " << testing::golden_root();
}

TEST_P(GoldenLogits, MatchTheReference) {
  const nlohmann::json golden = testing::read_golden(GetParam());
  auto model = Model::load(testing::golden_root() / GetParam());
  const double tolerance = golden["tolerance"].get<double>();
  ASSERT_GT(tolerance, 0.0);
  for (const auto& probe : golden["probes"]) {
    const auto ids = probe["ids"].get<std::vector<int32_t>>();
    const auto positions = probe["positions"].get<std::vector<int32_t>>();
    const auto rows = probe["logit_rows"].get<std::vector<int32_t>>();
    // The golden file's segments are [start, len, context_len]: the context is keys [0, context_len).
    std::vector<Segment> segments;
    for (const auto& s : probe["segments"])
      segments.push_back({s[0].get<int32_t>(), s[1].get<int32_t>(), 0, s[2].get<int32_t>()});
    ForwardRequest request{ids, positions, segments, rows, {}};
    const ForwardResult result = model->forward(request);
    ASSERT_EQ(result.n_rows, static_cast<int64_t>(rows.size()));
    ASSERT_EQ(result.n_cols, model->config().vocab_size);
    double max_diff = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
      const auto expected = probe["logits"][r].get<std::vector<double>>();
      ASSERT_EQ(expected.size(), static_cast<size_t>(result.n_cols));
      for (size_t v = 0; v < expected.size(); ++v)
        max_diff = std::max(max_diff, std::abs(double(result.row(static_cast<int64_t>(r))[v]) - expected[v]));
    }
    EXPECT_LE(max_diff, tolerance) << GetParam() << " probe " << probe["name"];
    // Only some vocabulary rows: the same values as the full projection, bitwise.
    const std::vector<int32_t> vocab = {7, 0, static_cast<int32_t>(model->config().vocab_size - 1), 7};
    request.vocab_rows = vocab;
    const ForwardResult some = model->forward(request);
    ASSERT_EQ(some.n_cols, 4);
    for (int64_t r = 0; r < some.n_rows; ++r)
      for (size_t v = 0; v < vocab.size(); ++v) EXPECT_EQ(some.row(r)[v], result.row(r)[vocab[v]]);
  }
}

INSTANTIATE_TEST_SUITE_P(AllCheckpoints, GoldenLogits, ::testing::ValuesIn(testing::golden_cases()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace sift
