#include <gtest/gtest.h>

#include "scoring/generate_answers.h"

namespace sift {
namespace {

using Decisions = std::vector<std::optional<bool>>;

TEST(GenerateAnswers, ParsesAWellFormedList) {
  EXPECT_EQ(parse_answer_list("1: YES\n2: NO\n3: YES\n", 3, "YES", "NO"), (Decisions{true, false, true}));
  EXPECT_EQ(parse_answer_list(format_answer_list({false, true}, "YES", "NO"), 2, "YES", "NO"),
            (Decisions{false, true}));
}

// An answer token with its own leading space (the compact preset's " YES" / " NO"): the list
// a perfect model writes ("1:  YES") parses back.
TEST(GenerateAnswers, AnswersWithTheirOwnSpaceRoundTrip) {
  EXPECT_EQ(format_answer_list({true, false}, " YES", " NO"), "1:  YES\n2:  NO\n");
  EXPECT_EQ(parse_answer_list(format_answer_list({true, false}, " YES", " NO"), 2, " YES", " NO"),
            (Decisions{true, false}));
}

TEST(GenerateAnswers, ToleratesSpacingAndOrder) {
  EXPECT_EQ(parse_answer_list("  2 :NO \r\n1:   YES", 2, "YES", "NO"), (Decisions{true, false}));
}

TEST(GenerateAnswers, NeverGuesses) {
  // missing item 2; item 3 answered "yes" (wrong case); item 4 out of range; junk lines
  EXPECT_EQ(parse_answer_list("1: YES\nblah\n3: yes\n4: NO\n: NO\nx: YES\n", 3, "YES", "NO"),
            (Decisions{true, std::nullopt, std::nullopt}));
  // contradicting lines for item 1: unparsed; a repeated agreeing line is fine
  EXPECT_EQ(parse_answer_list("1: YES\n1: NO\n2: NO\n2: NO", 2, "YES", "NO"), (Decisions{std::nullopt, false}));
  EXPECT_EQ(parse_answer_list("", 2, "YES", "NO"), (Decisions{std::nullopt, std::nullopt}));
  EXPECT_EQ(parse_answer_list("1: YES please", 1, "YES", "NO"), (Decisions{std::nullopt}));
  EXPECT_EQ(parse_answer_list("-1: YES\n+1: NO\n01: NO", 1, "YES", "NO"), (Decisions{false}));
}

}  // namespace
}  // namespace sift
