#include <gtest/gtest.h>

#include "core/error.h"
#include "scoring/layout.h"

namespace sift {

bool operator==(const Segment& a, const Segment& b) {
  return a.start == b.start && a.len == b.len && a.context_len == b.context_len;
}

namespace {

using Ids = std::vector<int32_t>;

TEST(Layout, MultiItemPacksQueryOnceAndRestartsItemPositions) {
  const Ids query = {10, 11, 12};
  const std::vector<TokenIds> items = {{20, 21}, {30}, {40, 41, 42}};
  RequestLayout layout = multi_item_layout(query, items);
  EXPECT_EQ(layout.ids, (Ids{10, 11, 12, 20, 21, 30, 40, 41, 42}));
  EXPECT_EQ(layout.positions, (Ids{0, 1, 2, 3, 4, 3, 3, 4, 5}));
  EXPECT_EQ(layout.segments, (std::vector<Segment>{{0, 3, 0}, {3, 2, 3}, {5, 1, 3}, {6, 3, 3}}));
  EXPECT_EQ(layout.logit_rows, (Ids{4, 5, 8}));
  EXPECT_EQ(layout.n_tokens(), 9);
}

TEST(Layout, MultiItemWithAnEmptyQuery) {
  RequestLayout layout = multi_item_layout({}, std::vector<TokenIds>{{5, 6}, {7}});
  EXPECT_EQ(layout.positions, (Ids{0, 1, 0}));
  EXPECT_EQ(layout.segments, (std::vector<Segment>{{0, 2, 0}, {2, 1, 0}}));
  EXPECT_EQ(layout.logit_rows, (Ids{1, 2}));
}

TEST(Layout, IndependentRepeatsTheQueryPerItem) {
  const Ids query = {10, 11};
  RequestLayout layout = independent_layout(query, std::vector<TokenIds>{{20}, {30, 31}});
  EXPECT_EQ(layout.ids, (Ids{10, 11, 20, 10, 11, 30, 31}));
  EXPECT_EQ(layout.positions, (Ids{0, 1, 2, 0, 1, 2, 3}));
  EXPECT_EQ(layout.segments, (std::vector<Segment>{{0, 3, 0}, {3, 4, 0}}));
  EXPECT_EQ(layout.logit_rows, (Ids{2, 6}));
}

TEST(Layout, ItemAgainstACachedQuery) {
  RequestLayout layout = cached_query_item_layout(5, Ids{7, 8, 9});
  EXPECT_EQ(layout.positions, (Ids{5, 6, 7}));
  EXPECT_EQ(layout.segments, (std::vector<Segment>{{0, 3, 5}}));
  EXPECT_EQ(layout.logit_rows, (Ids{2}));
}

TEST(Layout, DecodeStepIsOneTokenAtTheCacheEnd) {
  RequestLayout layout = causal_layout(Ids{99}, 12, 12);
  EXPECT_EQ(layout.positions, (Ids{12}));
  EXPECT_EQ(layout.segments, (std::vector<Segment>{{0, 1, 12}}));
}

TEST(Layout, ForwardRequestViewsTheLayout) {
  RequestLayout layout = multi_item_layout(Ids{1, 2}, std::vector<TokenIds>{{3}});
  const int32_t vocab[2] = {5, 6};
  ForwardRequest request = layout.forward_request(vocab);
  EXPECT_EQ(request.ids.data(), layout.ids.data());
  EXPECT_EQ(request.positions.size(), 3u);
  EXPECT_EQ(request.logit_rows.size(), 1u);
  EXPECT_EQ(request.vocab_rows.size(), 2u);
  EXPECT_EQ(request.segments.size(), 2u);
}

TEST(Layout, AnEmptyItemIsAnError) {
  EXPECT_THROW(multi_item_layout(Ids{1}, std::vector<TokenIds>{{2}, {}}), Error);
  EXPECT_THROW(independent_layout(Ids{1}, std::vector<TokenIds>{{}}), Error);
  EXPECT_THROW(cached_query_item_layout(1, Ids{}), Error);
}

}  // namespace
}  // namespace sift
