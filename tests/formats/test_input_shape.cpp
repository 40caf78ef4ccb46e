// The rule of sift score and sift batch for an input none of whose rows could be used: the
// shapes named from its first line, and when a run fails.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "formats/input_shape.h"
#include "formats/score_io.h"

namespace sift {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string failure_of(int64_t rows, int64_t errors, std::string_view first_line) {
  try {
    check_some_row_usable("sift score", rows, errors, first_line, "out.jsonl");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(InputShape, NamesTheShapesNewcomersGive) {
  const std::string json_lines = "not JSON lines: one row per line, {\"id\", \"query\", \"items\"}";
  EXPECT_THAT(input_shape_problem(R"([{"id": 1, "query": "q", "items": ["a"]}])"),
              StartsWith("the input is one JSON array, " + json_lines));
  EXPECT_THAT(input_shape_problem("  [\r"), StartsWith("the input is one JSON array"));  // pretty-printed
  EXPECT_THAT(input_shape_problem("{"), StartsWith("the input is JSON spread over several lines, " + json_lines));
  EXPECT_THAT(input_shape_problem("id,query,items"),
              StartsWith("the input looks like CSV (its first line has commas and no braces), " + json_lines));
  EXPECT_EQ(input_shape_problem(R"({"question": "q", "candidates": ["a"]})"),
            "got fields candidates, question; expected id, query, items");
  EXPECT_EQ(input_shape_problem("{}"), "got no fields; expected id, query, items");
  EXPECT_THAT(input_shape_problem(R"({"id": "m", "text": "t"})"), HasSubstr("this looks like a profile"));
}

TEST(InputShape, SaysNothingOfARowToScoreOrAnUnknownShape) {
  EXPECT_EQ(input_shape_problem(R"({"query": "q", "items": ["a"]})"), "");
  EXPECT_EQ(input_shape_problem(R"({"query": "q", "items": 3})"), "");  // a row to score, with a bad field
  EXPECT_EQ(input_shape_problem("not json"), "");
  EXPECT_EQ(input_shape_problem(R"({"query": "q", "items": ["a"], ")"), "");  // braces: not CSV
  EXPECT_EQ(input_shape_problem("42"), "");
  EXPECT_EQ(input_shape_problem(" \t"), "");
}

TEST(InputShape, ARowWithOtherFieldsSaysSoInItsOwnError) {
  try {
    parse_scoring_row(R"({"question": "q", "candidates": ["a"]})");
    FAIL() << "parsed";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "missing field \"query\": got fields candidates, question; expected id, query, items");
  }
}

TEST(UsableRows, ARunWithAGoodRowPassesAndOneWithoutFails) {
  EXPECT_EQ(failure_of(3, 2, "[1]"), "");
  EXPECT_THAT(failure_of(0, 0, ""), StartsWith("sift score: the input is empty: no row to score; expected JSON lines"));
  EXPECT_THAT(failure_of(3, 3, "id,query,items"),
              AllOf(StartsWith("sift score: none of the input's 3 rows could be scored (their error lines are in "
                               "out.jsonl): the input looks like CSV"),
                    HasSubstr("{\"id\", \"query\", \"items\"}")));
  EXPECT_EQ(failure_of(1, 1, R"({"query": "q", "items": 3})"),
            "sift score: the input's one row could not be scored (its error line is in out.jsonl)");
  EXPECT_THAT(failure_of(2, 2, ""), HasSubstr("could be scored (their error lines are in out.jsonl): the input holds "
                                              "only blank lines"));
}

}  // namespace
}  // namespace sift
