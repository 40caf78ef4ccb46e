// ScoringOptions::truncate: a row too long for a request has its user text cut until every
// item fits with its query, and is then scored exactly as the cut text would be scored.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "scoring/loaded_labeler.h"
#include "scoring/truncation.h"
#include "sift/error.h"

namespace sift {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const LoadedLabeler& labeler() {
  static const std::unique_ptr<LoadedLabeler> engine =
      LoadedLabeler::load(std::string(SIFT_SOURCE_DIR) + "/models/default-labeler");
  return *engine;
}

std::string long_profile() {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "Senior engineer with " + std::to_string(i) + " years of Python, Go and Kubernetes. ";
  return text;
}

// One row scored alone on a session of its own.
RowResult score(const std::string& query, const std::vector<std::string>& items, const ScoringOptions& options) {
  Session session(labeler().model());
  const TextRow row{query, items};
  return labeler().score_rows(session, std::span<const TextRow>(&row, 1), options)[0];
}

ScoringOptions limited(int64_t tokens, Truncate truncate, TruncationDirection direction = TruncationDirection::Right) {
  ScoringOptions options;
  options.max_request_tokens = tokens;
  options.truncate = truncate;
  options.truncation_direction = direction;
  return options;
}

// The prefix (or suffix) of `text`, in characters (ASCII here), whose part `encode` gives
// exactly `ids`: what the engine kept.
std::string kept_text(const std::string& text, bool prefix, const TokenIds& ids,
                      const std::function<TokenIds(const std::string&)>& encode) {
  for (size_t n = 0; n <= text.size(); ++n) {
    const std::string kept = prefix ? text.substr(0, n) : text.substr(text.size() - n);
    if (encode(kept) == ids) return kept;
  }
  ADD_FAILURE() << "no prefix or suffix of the text gives the truncated ids";
  return text;
}

TEST(Truncation, WithoutItARowTooLongIsItsError) {
  const RowResult r = score(long_profile(), {"Python"}, limited(200, Truncate::None));
  EXPECT_THAT(r.error, HasSubstr("more than the request limit of 200"));
}

TEST(Truncation, QueryRightKeepsAPrefixThatFitsAndScoresAsThatText) {
  const std::string query = long_profile();
  const std::vector<std::string> items = {"Python", "Kubernetes administration"};
  const int64_t limit = 200;
  const ScoringOptions options = limited(limit, Truncate::Query);
  const TokenizedRow row = labeler().tokenize(query, items, options);
  ASSERT_TRUE(row.error.empty()) << row.error;
  const PromptEncoder& prompts = labeler().prompts();
  const auto encode = [&](const std::string& text) { return prompts.query_tokens(text); };
  const std::string kept = kept_text(query, true, row.query, encode);
  ASSERT_LT(kept.size(), query.size());
  const int64_t longest_item = int64_t(std::max(row.items[0].size(), row.items[1].size()));
  EXPECT_LE(int64_t(row.query.size()) + longest_item, limit) << "it fits";
  EXPECT_GT(int64_t(encode(query.substr(0, kept.size() + 1)).size()) + longest_item, limit) << "one more character would not";
  EXPECT_EQ(row.truncated_tokens, int64_t(encode(query).size()) - int64_t(row.query.size()));
  EXPECT_EQ(row.items[0], prompts.item_tokens(items[0])) << "items are not cut";
  // Scored, the cut row is the row of the kept text scored without truncation: the same bits.
  const RowResult cut = score(query, items, options);
  const RowResult reference = score(kept, items, ScoringOptions{});
  ASSERT_TRUE(cut.error.empty() && reference.error.empty()) << cut.error << reference.error;
  EXPECT_EQ(cut.scores, reference.scores);
  EXPECT_EQ(cut.truncated_tokens, row.truncated_tokens);
  EXPECT_GT(cut.truncated_tokens, 0);
  EXPECT_EQ(reference.truncated_tokens, 0);
}

TEST(Truncation, QueryLeftKeepsASuffix) {
  const std::string query = "Intro " + long_profile() + "Ends with welding.";
  const std::vector<std::string> items = {"Welding"};
  const ScoringOptions options = limited(150, Truncate::Query, TruncationDirection::Left);
  const TokenizedRow row = labeler().tokenize(query, items, options);
  ASSERT_TRUE(row.error.empty()) << row.error;
  const PromptEncoder& prompts = labeler().prompts();
  const std::string kept =
      kept_text(query, false, row.query, [&](const std::string& text) { return prompts.query_tokens(text); });
  EXPECT_THAT(kept, ::testing::EndsWith("Ends with welding."));
  EXPECT_LT(kept.size(), query.size());
  EXPECT_LE(row.query.size() + row.items[0].size(), 150u);
  EXPECT_EQ(score(query, items, options).scores, score(kept, items, ScoringOptions{}).scores);
}

TEST(Truncation, ItemsCutsOnlyTheItemsThatDoNotFit) {
  const std::string query = "Ten years of Python";
  const std::vector<std::string> items = {"Python", long_profile(), "Go"};
  const ScoringOptions options = limited(120, Truncate::Items);
  const TokenizedRow row = labeler().tokenize(query, items, options);
  ASSERT_TRUE(row.error.empty()) << row.error;
  const PromptEncoder& prompts = labeler().prompts();
  EXPECT_EQ(row.query, prompts.query_tokens(query)) << "the query is not cut";
  EXPECT_EQ(row.items[0], prompts.item_tokens(items[0]));
  EXPECT_EQ(row.items[2], prompts.item_tokens(items[2]));
  const std::string kept =
      kept_text(items[1], true, row.items[1], [&](const std::string& text) { return prompts.item_tokens(text); });
  EXPECT_LE(row.query.size() + row.items[1].size(), 120u);
  EXPECT_EQ(row.truncated_tokens, int64_t(prompts.item_tokens(items[1]).size()) - int64_t(row.items[1].size()));
  const RowResult cut = score(query, items, options);
  EXPECT_EQ(cut.scores, score(query, {items[0], kept, items[2]}, ScoringOptions{}).scores);
}

TEST(Truncation, ATemplateTooLongForTheLimitIsTheRowsError) {
  const RowResult r = score(long_profile(), {"Python"}, limited(20, Truncate::Query));
  EXPECT_THAT(r.error, HasSubstr("--truncate query"));
  EXPECT_THAT(r.error, HasSubstr("its template alone is"));
  const RowResult items = score(long_profile(), {"Python"}, limited(200, Truncate::Items));
  EXPECT_THAT(items.error, HasSubstr("--truncate items"));
}

TEST(Truncation, IsNotForModeGenerate) {
  ScoringOptions options = limited(200, Truncate::Query);
  options.mode = ScoringMode::Generate;
  EXPECT_THROW(labeler().limits(options), OptionError);
}

// The rule over parts already tokenized (token ids from a client): the query cut to what its
// longest item leaves, or only the items over the limit cut, each to the same target.
TEST(Truncation, PartsAlreadyTokenizedAreCutByTheSameRule) {
  const auto ids = [](int n, int32_t first) {
    TokenIds v(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = first + i;
    return v;
  };
  std::vector<std::pair<int, int64_t>> asked;
  const auto keep_first = [&](TokenIds& query, std::vector<TokenIds>& items) {
    return [&](int part, int64_t target) {
      asked.emplace_back(part, target);
      const TokenIds& whole = part < 0 ? query : items[static_cast<size_t>(part)];
      return TokenIds(whole.begin(), whole.begin() + target);
    };
  };
  // Query: bos 1 + query 10, items 4 and 7, limit 12: the query keeps 12 - 7 - 1 = 4.
  TokenIds query = ids(10, 100);
  std::vector<TokenIds> items = {ids(4, 200), ids(7, 300)};
  EXPECT_EQ(truncate_parts_to_fit(Truncate::Query, 12, 1, query, items, keep_first(query, items)), 6);
  EXPECT_EQ(query, ids(4, 100));
  EXPECT_EQ(asked, (std::vector<std::pair<int, int64_t>>{{-1, 4}}));
  // Items: bos 1 + query 5, items 4, 9 and 6, limit 10: items 1 and 2 cut to 4, item 0 kept.
  asked.clear();
  query = ids(5, 100);
  items = {ids(4, 200), ids(9, 300), ids(6, 400)};
  EXPECT_EQ(truncate_parts_to_fit(Truncate::Items, 10, 1, query, items, keep_first(query, items)), 7);
  EXPECT_EQ(items, (std::vector<TokenIds>{ids(4, 200), ids(4, 300), ids(4, 400)}));
  EXPECT_EQ(asked, (std::vector<std::pair<int, int64_t>>{{1, 4}, {2, 4}}));
  // What fits is not cut; None cuts nothing.
  EXPECT_EQ(truncate_parts_to_fit(Truncate::Query, 10, 1, query, items, keep_first(query, items)), 0);
  items.push_back(ids(20, 500));
  EXPECT_EQ(truncate_parts_to_fit(Truncate::None, 10, 1, query, items, keep_first(query, items)), 0);
  EXPECT_EQ(items.back().size(), 20u);
  // No cut can make them fit: the error names the lengths.
  EXPECT_THAT([&] { truncate_parts_to_fit(Truncate::Query, 10, 1, query, items, keep_first(query, items)); },
              ThrowsMessage<Error>(HasSubstr("the longest item (20 tokens) leaves no room for the query within the "
                                             "request limit of 10")));
  EXPECT_THAT([&] { truncate_parts_to_fit(Truncate::Items, 6, 1, query, items, keep_first(query, items)); },
              ThrowsMessage<Error>(HasSubstr("the query (6 tokens) leaves no tokens of the request limit of 6")));
}

TEST(Truncation, NamesReadBack) {
  for (Truncate t : {Truncate::None, Truncate::Query, Truncate::Items}) EXPECT_EQ(parse_truncate(truncate_name(t)), t);
  for (TruncationDirection d : {TruncationDirection::Right, TruncationDirection::Left})
    EXPECT_EQ(parse_truncation_direction(truncation_direction_name(d)), d);
  EXPECT_EQ(parse_truncate("both"), std::nullopt);
}

}  // namespace
}  // namespace sift
