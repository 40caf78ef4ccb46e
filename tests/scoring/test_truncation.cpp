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
#include "sift/error.h"

namespace sift {
namespace {

using ::testing::HasSubstr;

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

TEST(Truncation, NamesReadBack) {
  for (Truncate t : {Truncate::None, Truncate::Query, Truncate::Items}) EXPECT_EQ(parse_truncate(truncate_name(t)), t);
  for (TruncationDirection d : {TruncationDirection::Right, TruncationDirection::Left})
    EXPECT_EQ(parse_truncation_direction(truncation_direction_name(d)), d);
  EXPECT_EQ(parse_truncate("both"), std::nullopt);
}

}  // namespace
}  // namespace sift
