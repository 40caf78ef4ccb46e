#include <gtest/gtest.h>

#include "core/error.h"
#include "workflows/cost_model.h"

namespace sift {
namespace {

// Paper §4.3: Lq = 744, Li = 28, N = 200.
CostShape paper_shape() {
  CostShape s;
  s.query_len = 744;
  s.item_len = 28;
  s.n_items = 200;
  s.answer_tokens_per_item = 28 + 3;  // an answer line restating the candidate + number, colon, label
  return s;
}

TEST(CostModel, ReproducesThePaperFigures) {
  const CostShape s = paper_shape();
  EXPECT_NEAR(mis_tokens_per_label(s), 32, 0.5);           // 31.72
  EXPECT_NEAR(independent_tokens_per_label(s), 770, 3);    // 772
  EXPECT_NEAR(generate_tokens_per_label(s), 63, 0.5);      // 62.72
  EXPECT_DOUBLE_EQ(mis_tokens_per_label(s), (744.0 + 200 * 28) / 200);
  EXPECT_DOUBLE_EQ(independent_tokens_per_label(s), 772);
  EXPECT_NEAR(generate_tokens_per_label(s) / mis_tokens_per_label(s), 2.0, 0.03);  // "about 2.0x" (1.977)
  EXPECT_NEAR(mis_reduction_factor(s), 772 / 31.72, 1e-9);
}

TEST(CostModel, ReductionTendsToOnePlusQueryOverItem) {
  CostShape s = paper_shape();
  const double limit = mis_reduction_limit(s);
  EXPECT_DOUBLE_EQ(limit, 1 + 744.0 / 28);
  double previous = 0;
  for (double n : {1.0, 10.0, 200.0, 1e4, 1e7}) {
    s.n_items = n;
    const double factor = mis_reduction_factor(s);
    EXPECT_GT(factor, previous);
    EXPECT_LE(factor, limit);
    previous = factor;
  }
  EXPECT_NEAR(previous, limit, 1e-3);
  s.n_items = 1;
  EXPECT_DOUBLE_EQ(mis_reduction_factor(s), 1.0);  // one item: nothing to share
}

TEST(CostModel, RejectsNonsense) {
  CostShape s = paper_shape();
  s.n_items = 0;
  EXPECT_THROW(mis_tokens_per_label(s), Error);
  s = paper_shape();
  s.item_len = -1;
  EXPECT_THROW(independent_tokens_per_label(s), Error);
}

}  // namespace
}  // namespace sift
