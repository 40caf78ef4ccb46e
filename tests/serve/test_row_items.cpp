// The one items rule (io/row_items.h) as every JSON reader of rows applies it: `sift score` /
// `sift batch` lines, `sift serve`'s /v1/label items and /v1/rerank documents, and
// `sift tokenizer train`'s JSON-lines corpus give a bad list or item the same message, and
// sift serve names the same path. (The Python package's rows: python/tests/test_labeler.py.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

#include "core/error.h"
#include "io/row_items.h"
#include "formats/score_io.h"
#include "serve/api_requests.h"
#include "tokenizer/bpe_corpus.h"

namespace sift {
namespace {

using nlohmann::json;

struct BadItems {
  json items;
  std::string message;  // with "items" as the field
  std::string param;
};

const BadItems kCases[] = {
    {"a", "field \"items\" must be a list, got string", "items"},
    {json::object(), "field \"items\" must be a list, got object", "items"},
    {{"a", 5}, "items[1] must be a string or an object with \"text\", got number", "items[1]"},
    {{"a", nullptr}, "items[1] must be a string or an object with \"text\", got null", "items[1]"},
    {{{{"id", 1}}}, "items[0] must have a string field \"text\"", "items[0].text"},
    {{"a", {{"id", 1}, {"text", 7}}}, "items[1] must have a string field \"text\"", "items[1].text"},
};

std::string renamed(std::string text, const std::string& field) {  // "items" -> field
  for (size_t at = text.find("items"); at != std::string::npos; at = text.find("items", at + field.size()))
    text.replace(at, 5, field);
  return text;
}

TEST(RowItems, EveryReaderGivesTheSameMessageAndPath) {
  for (const BadItems& bad : kCases) {
    SCOPED_TRACE(bad.items.dump());
    try {
      read_json_row_items(bad.items, "items", true);
      ADD_FAILURE() << "the rule itself accepted it";
    } catch (const RowItemsError& e) {
      EXPECT_EQ(e.what(), bad.message);
      EXPECT_EQ(e.param(), bad.param);
    }
    const json row = {{"id", 1}, {"query", "q"}, {"items", bad.items}};
    try {
      parse_scoring_row(row.dump());
      ADD_FAILURE() << "sift score accepted it";
    } catch (const Error& e) {
      EXPECT_EQ(e.what(), bad.message);
    }
    try {
      serve::parse_label_request(row.dump(), 10'000);
      ADD_FAILURE() << "/v1/label accepted it";
    } catch (const serve::BadRequest& e) {
      EXPECT_EQ(e.what(), bad.message);
      EXPECT_EQ(e.field(), bad.param);
    }
    try {
      serve::parse_rerank_request(json{{"query", "q"}, {"documents", bad.items}}.dump(), 10'000);
      ADD_FAILURE() << "/v1/rerank accepted it";
    } catch (const serve::BadRequest& e) {
      EXPECT_EQ(e.what(), renamed(bad.message, "documents"));
      EXPECT_EQ(e.field(), renamed(bad.param, "documents"));
    }
    std::istringstream corpus(row.dump() + "\n");
    try {
      read_corpus(corpus, "rows.jsonl", kDefaultMaxLineBytes, [](std::string_view) {});
      ADD_FAILURE() << "sift tokenizer train accepted it";
    } catch (const Error& e) {
      EXPECT_EQ(e.what(), "rows.jsonl:1: " + bad.message);
    }
  }
}

TEST(RowItems, ItemsAreTextsWithOptionalIdsOfAnyType) {
  const json items = {"a", {{"id", 7}, {"text", "b"}}, {{"text", "c"}}, {{"id", {{"k", {1, 2.5}}}}, {"text", "d"}}};
  const JsonRowItems read = read_json_row_items(items, "items", true);
  EXPECT_EQ(read.texts, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(read.ids, (std::vector<json>{nullptr, 7, nullptr, {{"k", {1, 2.5}}}}));
  EXPECT_TRUE(read.has_ids);
  const JsonRowItems texts_only = read_json_row_items(items, "items", false);
  EXPECT_EQ(texts_only.texts, read.texts);
  EXPECT_TRUE(texts_only.ids.empty());
  EXPECT_FALSE(read_json_row_items(json{"a", {{"text", "b"}}}, "items", true).has_ids);
  EXPECT_TRUE(read_json_row_items(json::array(), "items", true).texts.empty());
}

}  // namespace
}  // namespace sift
