// Forward plans (scoring/plan.h): the multi-item layout of one request, several requests and
// rows side by side in one call, and the fit check. How rows are packed into calls under the
// budget is the scheduler's (tests/scoring/test_scheduler.cpp).
#include <gtest/gtest.h>

#include "core/error.h"
#include "scoring/plan.h"

namespace sift {

bool operator==(const Segment& a, const Segment& b) {
  return a.start == b.start && a.len == b.len && a.context_begin == b.context_begin && a.context_end == b.context_end;
}

namespace {

using Ids = std::vector<int32_t>;

TEST(Plan, MultiItemPacksQueryOnceAndRestartsItemPositions) {
  const Ids query = {10, 11, 12};
  const std::vector<TokenIds> items = {{20, 21}, {30}, {40, 41, 42}};
  ForwardCall call;
  append_request(call, query, items, 0, 0);
  EXPECT_EQ(call.ids, (Ids{10, 11, 12, 20, 21, 30, 40, 41, 42}));
  EXPECT_EQ(call.positions, (Ids{0, 1, 2, 3, 4, 3, 3, 4, 5}));
  EXPECT_EQ(call.segments, (std::vector<Segment>{{0, 3, 0, 0}, {3, 2, 0, 3}, {5, 1, 0, 3}, {6, 3, 0, 3}}));
  EXPECT_EQ(call.logit_rows, (Ids{4, 5, 8}));
  ASSERT_EQ(call.requests.size(), 1u);
  EXPECT_EQ(call.requests[0].n_tokens, 9);
}

TEST(Plan, MultiItemWithAnEmptyQuery) {
  ForwardCall call;
  append_request(call, {}, std::vector<TokenIds>{{5, 6}, {7}}, 0, 0);
  EXPECT_EQ(call.positions, (Ids{0, 1, 0}));
  EXPECT_EQ(call.segments, (std::vector<Segment>{{0, 2, 0, 0}, {2, 1, 0, 0}}));
  EXPECT_EQ(call.logit_rows, (Ids{1, 2}));
}

TEST(Plan, SecondRequestSeesOnlyItsOwnQuery) {
  ForwardCall call;
  append_request(call, Ids{1, 2}, std::vector<TokenIds>{{3}}, 0, 0);
  append_request(call, Ids{4, 5, 6}, std::vector<TokenIds>{{7, 8}, {9}}, 1, 0);
  EXPECT_EQ(call.positions, (Ids{0, 1, 2, 0, 1, 2, 3, 4, 3}));
  EXPECT_EQ(call.segments,
            (std::vector<Segment>{{0, 2, 0, 0}, {2, 1, 0, 2}, {3, 3, 0, 0}, {6, 2, 3, 6}, {8, 1, 3, 6}}));
  EXPECT_EQ(call.logit_rows, (Ids{2, 7, 8}));
  ASSERT_EQ(call.slots.size(), 3u);
  EXPECT_EQ(call.slots[2].row, 1);
  EXPECT_EQ(call.slots[2].item, 1);
}

TEST(Plan, ItemsAgainstACachedQuery) {
  ForwardCall call;
  call.key_offset = 5;  // the query's 5 keys are cached in the session
  append_items(call, {0, 5}, std::vector<TokenIds>{{7, 8, 9}}, 0, 3);
  EXPECT_EQ(call.positions, (Ids{5, 6, 7}));
  EXPECT_EQ(call.segments, (std::vector<Segment>{{0, 3, 0, 5}}));
  EXPECT_EQ(call.logit_rows, (Ids{2}));
  EXPECT_EQ(call.slots[0].item, 3);
}

TEST(Plan, ForwardRequestViewsTheCall) {
  ForwardCall call;
  append_request(call, Ids{1, 2}, std::vector<TokenIds>{{3}}, 0, 0);
  const int32_t vocab[2] = {5, 6};
  ForwardRequest request = call.request(vocab);
  EXPECT_EQ(request.ids.data(), call.ids.data());
  EXPECT_EQ(request.positions.size(), 3u);
  EXPECT_EQ(request.logit_rows.size(), 1u);
  EXPECT_EQ(request.vocab_rows.size(), 2u);
  EXPECT_EQ(request.segments.size(), 2u);
}

TEST(Plan, AnEmptyItemIsAnError) {
  ForwardCall call;
  EXPECT_THROW(append_request(call, Ids{1}, std::vector<TokenIds>{{2}, {}}, 0, 0), Error);
}

TEST(Plan, IndependentRequestsEachCarryTheirQuery) {
  // Independent scoring: one request [q; c_i] per item (the scheduler's plan), laid out side by side.
  const Ids query = {1, 1, 1};
  const std::vector<TokenIds> items = {{2}, {2, 2}};
  ForwardCall call;
  for (int32_t i = 0; i < 2; ++i) append_request(call, query, std::span<const TokenIds>(items).subspan(size_t(i), 1), 0, i);
  EXPECT_EQ(call.requests.size(), 2u);
  EXPECT_EQ(call.n_tokens(), 9);
  EXPECT_EQ(call.positions, (Ids{0, 1, 2, 3, 0, 1, 2, 3, 4}));
}

TEST(Plan, ARowThatCannotFitIsAClearError) {
  ModelConfig config;
  config.max_position_embeddings = 16;
  const Ids query(10, 1);
  const std::vector<TokenIds> items = {TokenIds(4, 2), TokenIds(8, 2)};
  const TokenRow row{query, items};
  try {
    check_row_fits(config, row, {1000, 1000});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("item 1 (8 tokens) is 18 tokens, more than the model's"), std::string::npos)
        << e.what();
  }
  config.max_position_embeddings = 100;
  EXPECT_THROW(check_row_fits(config, row, {1000, 15}), Error);
  EXPECT_NO_THROW(check_row_fits(config, row, {1000, 18}));
}

}  // namespace
}  // namespace sift
