// Long items (scoring/long_items.h): an item longer than a request allows is the row's error,
// cut, or scored by windows whose greatest score is the item's, bit for bit the score its
// best window gets as an ordinary item.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "scoring/loaded_labeler.h"
#include "scoring/long_items.h"
#include "sift/error.h"

namespace sift {
namespace {

using ::testing::HasSubstr;

const LoadedLabeler& labeler() {
  static const std::unique_ptr<LoadedLabeler> engine =
      LoadedLabeler::load(std::string(SIFT_SOURCE_DIR) + "/models/default-labeler");
  return *engine;
}

// A document whose windows differ: skills come and go along it.
std::string long_document(int sentences) {
  const std::vector<std::string> skills = {"Python", "welding", "Kubernetes", "accounting", "Go", "nursing", "SQL"};
  std::string text;
  for (int i = 0; i < sentences; ++i)
    text += "In year " + std::to_string(i) + " the member worked with " + skills[static_cast<size_t>(i * 5 % 7)] +
            " and " + skills[static_cast<size_t>(i * 3 % 7)] + ". ";
  return text;
}

RowResult score(const std::string& query, const std::vector<std::string>& items, const ScoringOptions& options) {
  Session session(labeler().model());
  const TextRow row{query, items};
  return labeler().score_rows(session, std::span<const TextRow>(&row, 1), options)[0];
}

ScoringOptions chunked(int64_t max_item_tokens) {
  ScoringOptions options;
  options.long_items = LongItems::Chunk;
  options.max_item_tokens = max_item_tokens;
  options.max_request_tokens = 100'000;  // every window of the row in one request
  return options;
}

// ASCII text: characters are bytes.
std::string window_text(const std::string& text, std::pair<int64_t, int64_t> span) {
  return text.substr(static_cast<size_t>(span.first), static_cast<size_t>(span.second - span.first));
}

constexpr int kTwentyWindowSentences = 42;  // long_document(42) makes 20 windows of 64 tokens

TEST(LongItems, ADocumentOfTwentyWindowsScoresBitwiseTheGreatestOfItsWindowsScoredAlone) {
  const std::string query = "Ten years of Python and Go";
  const std::string document = long_document(kTwentyWindowSentences);
  const RowResult r = score(query, {"Python", document, "welding"}, chunked(64));
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.scores.size(), 3u);
  ASSERT_EQ(r.windows.size(), 1u);
  const ItemWindows& windows = r.windows[0];
  EXPECT_EQ(windows.item, 1);
  ASSERT_EQ(windows.spans.size(), 20u);
  EXPECT_EQ(r.window_tokens, 64);

  // The windows cover the text, in order, each overlapping the next.
  EXPECT_EQ(windows.spans.front().first, 0);
  EXPECT_EQ(windows.spans.back().second, static_cast<int64_t>(document.size()));
  for (size_t k = 1; k < windows.spans.size(); ++k) {
    EXPECT_GT(windows.spans[k].first, windows.spans[k - 1].first);
    EXPECT_LT(windows.spans[k].first, windows.spans[k - 1].second) << "window " << k << " does not overlap";
  }

  // Each window scored as an ordinary item of a row of its own (no chunking, no request limit
  // beyond the default): the item's score is their greatest, bit for bit.
  std::vector<std::string> texts;
  for (const auto& span : windows.spans) texts.push_back(window_text(document, span));
  std::vector<double> alone;
  for (const std::string& text : texts) {
    const RowResult w = score(query, {text}, {});
    ASSERT_TRUE(w.error.empty()) << w.error;
    alone.push_back(*w.scores[0]);
  }
  const auto best = std::max_element(alone.begin(), alone.end());
  EXPECT_EQ(*r.scores[1], *best);  // bitwise: == on doubles
  EXPECT_EQ(windows.best, best - alone.begin());
  EXPECT_EQ(*r.labels[1], *r.scores[1] >= labeler().threshold({}));
  EXPECT_NE(*std::min_element(alone.begin(), alone.end()), *best) << "the windows should not all score alike";
  EXPECT_EQ(*r.scores[0], *score(query, {"Python"}, {}).scores[0]);
  EXPECT_EQ(*r.scores[2], *score(query, {"welding"}, {}).scores[0]);

  // Cost: one request of the query once and every window (and the two short items).
  const TokenizedRow row = labeler().tokenize(query, std::vector<std::string>{"Python", document, "welding"}, chunked(64));
  int64_t parts = 0;
  for (const TokenIds& item : row.items) parts += static_cast<int64_t>(item.size());
  EXPECT_EQ(r.requests, 1);
  EXPECT_EQ(r.prefill_tokens, static_cast<int64_t>(row.query.size()) + parts);
  EXPECT_EQ(row.items.size(), 22u);
  for (const TokenIds& item : row.items) EXPECT_LE(item.size(), 64u);
}

TEST(LongItems, WindowsSplitAcrossRequestsStillScoreTheSame) {
  const std::string query = "Ten years of Python and Go";
  const std::string document = long_document(kTwentyWindowSentences);
  const RowResult one = score(query, {document}, chunked(64));
  ScoringOptions split = chunked(64);
  split.max_request_tokens = 200;  // a few windows a request: the query runs in each
  const RowResult many = score(query, {document}, split);
  ASSERT_TRUE(one.error.empty() && many.error.empty()) << one.error << many.error;
  EXPECT_EQ(*one.scores[0], *many.scores[0]);
  EXPECT_GT(many.requests, 1);
  EXPECT_EQ(many.windows[0].spans, one.windows[0].spans);
}

TEST(LongItems, ErrorIsTheDefaultAndNamesTheItemAndTheWayOut) {
  ScoringOptions options;
  options.max_item_tokens = 64;
  const RowResult r = score("q", {"Python", long_document(10)}, options);
  EXPECT_THAT(r.error, HasSubstr("item 1 is"));
  EXPECT_THAT(r.error, HasSubstr("more than --max-item-tokens 64"));
  EXPECT_THAT(r.error, HasSubstr("--long-items chunk"));

  ScoringOptions small_request;
  small_request.max_request_tokens = 100;
  EXPECT_THAT(score("q", {long_document(10)}, small_request).error, HasSubstr("more than the request limit of 100"));
}

TEST(LongItems, TruncateCutsAsTruncateItemsDoesAndCountsTheCut) {
  ScoringOptions truncate = chunked(64);
  truncate.long_items = LongItems::Truncate;
  ScoringOptions truncate_items;
  truncate_items.truncate = Truncate::Items;
  truncate_items.max_item_tokens = 64;
  const RowResult a = score("q", {long_document(10)}, truncate);
  const RowResult b = score("q", {long_document(10)}, truncate_items);
  ASSERT_TRUE(a.error.empty() && b.error.empty()) << a.error << b.error;
  EXPECT_GT(a.truncated_tokens, 0);
  EXPECT_EQ(a.truncated_tokens, b.truncated_tokens);
  EXPECT_EQ(*a.scores[0], *b.scores[0]);
  EXPECT_TRUE(a.windows.empty());
}

TEST(LongItems, ContradictionsAndBadSizesAreOptionErrors) {
  ScoringOptions both = chunked(64);
  both.truncate = Truncate::Items;
  EXPECT_THROW(labeler().limits(both), OptionError);
  ScoringOptions query_and_chunk = chunked(64);
  query_and_chunk.truncate = Truncate::Query;
  EXPECT_THROW(labeler().limits(query_and_chunk), OptionError);
  ScoringOptions zero_stride = chunked(64);
  zero_stride.window_stride = 0;
  EXPECT_THROW(labeler().limits(zero_stride), OptionError);
  ScoringOptions window_over_limit = chunked(64);
  window_over_limit.max_request_tokens = 50;  // a window of 64 cannot fit a request of 50
  try {
    labeler().limits(window_over_limit);
    ADD_FAILURE() << "a window over the request limit was accepted";
  } catch (const OptionError& e) {
    EXPECT_THAT(e.what(), HasSubstr("--max-item-tokens 64 is more than a request holds"));
  }
  ScoringOptions generate = chunked(64);
  generate.mode = ScoringMode::Generate;
  EXPECT_THROW(labeler().limits(generate), OptionError);
}

TEST(LongItems, HostileSizesAreTheRowsErrorNotARunaway) {
  // A 10 MB item: refused from its length before a window is built.
  const std::string huge(10u << 20, 'a');
  RowResult r = score("q", {"Python", huge}, chunked(64));
  EXPECT_THAT(r.error, HasSubstr("item 1 is"));
  EXPECT_THAT(r.error, HasSubstr("more than --max-windows 256"));

  ScoringOptions wide_stride = chunked(64);
  wide_stride.window_stride = 1000;  // more than a window's text: text between windows would go unscored
  EXPECT_THAT(score("q", {long_document(30)}, wide_stride).error, HasSubstr("scored by none"));

  ScoringOptions tiny = chunked(3);  // less than the item template itself
  EXPECT_THAT(score("q", {long_document(30)}, tiny).error, HasSubstr("cannot hold the item template"));

  ScoringOptions few = chunked(64);
  few.max_windows = 5;
  EXPECT_THAT(score("q", {long_document(30)}, few).error, HasSubstr("more than --max-windows 5"));
}

TEST(LongItems, SpansCountCharactersNotBytes) {
  std::string document;
  for (int i = 0; i < 60; ++i) document += "Über " + std::to_string(i) + " Jahre Erfahrung mit Köln und Zürich. ";
  const RowResult r = score("q", {document}, chunked(48));
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.windows.size(), 1u);
  int64_t characters = 0;
  for (char c : document) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  EXPECT_EQ(r.windows[0].spans.back().second, characters);
  EXPECT_LT(characters, static_cast<int64_t>(document.size()));
}

TEST(LongItems, AStrideOfOneTokenStillMovesOn) {
  ScoringOptions options = chunked(64);
  options.window_stride = 1;
  const RowResult r = score("q", {long_document(6)}, options);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_GT(r.windows[0].spans.size(), 1u);
  for (size_t k = 1; k < r.windows[0].spans.size(); ++k)
    EXPECT_GT(r.windows[0].spans[k].first, r.windows[0].spans[k - 1].first);
}

}  // namespace
}  // namespace sift
