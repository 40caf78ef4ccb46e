// Admission of `sift serve`'s request bodies by size (serve/api_requests.h, serve/admission.h):
// a body's items are counted while it is parsed, so a body of millions of tiny items is refused
// (413 naming --max-items) before it is built whole: what the parse allocates is counted
// (tests/common/allocation_counter.h), not timed.
#include <gtest/gtest.h>

#include <string>

#include "../common/allocation_counter.h"
#include "serve/admission.h"
#include "serve/api_requests.h"

namespace sift::serve {
namespace {

using sift::testing::allocations_of;

// {"query": ..., "<field>": [<item>, <item>, ...]} with n items.
std::string body_of(const std::string& head, const char* field, const std::string& item, size_t n) {
  std::string body = head + ", \"" + field + "\": [";
  body.reserve(body.size() + n * (item.size() + 1) + 2);
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) body += ',';
    body += item;
  }
  return body + "]}";
}

template <typename Parse>
void expect_refused_early(const std::string& body, const char* field, Parse parse) {
  int status = 0;
  std::string message, param;
  const auto allocated = allocations_of([&] {
    try {
      parse(body);
    } catch (const BadRequest& e) {
      status = e.status();
      message = e.what();
      param = e.field();
    }
  });
  EXPECT_EQ(status, 413);
  EXPECT_EQ(param, field);
  EXPECT_NE(message.find("more than --max-items 10000"), std::string::npos) << message;
  // 10,001 items as a DOM are well under a megabyte; the whole body would be hundreds.
  EXPECT_LT(allocated.bytes, int64_t{16} << 20) << "bytes allocated while parsing a " << body.size() << "-byte body";
}

TEST(ServeAdmission, ItemsAreCountedWhileParsingAndTheRestIsNeverBuilt) {
  // 2.8 million empty id lists: 8.4 MB of body, once a 1.2 GB DOM before the --max-items check.
  const std::string score = body_of(R"({"label_token_ids": [1], "query": [1])", "items", "[]", 2'800'000);
  expect_refused_early(score, "items", [](const std::string& b) { parse_score_request(b, 10'000); });
  const std::string label = body_of(R"({"query": "q")", "items", R"("")", 2'800'000);
  expect_refused_early(label, "items", [](const std::string& b) { parse_label_request(b, 10'000); });
  const std::string rerank = body_of(R"({"query": "q")", "documents", R"("")", 2'800'000);
  expect_refused_early(rerank, "documents", [](const std::string& b) { parse_rerank_request(b, 10'000); });
}

TEST(ServeAdmission, AtMaxItemsTheBodyIsParsedWhole) {
  EXPECT_EQ(parse_score_request(body_of(R"({"label_token_ids": [1], "query": [1])", "items", "[2]", 3), 3).items.size(), 3u);
  EXPECT_EQ(parse_label_request(body_of(R"({"query": "q")", "items", R"("a")", 3), 3).items.size(), 3u);
  EXPECT_THROW(parse_label_request(body_of(R"({"query": "q")", "items", R"("a")", 4), 3), BadRequest);
  // Only the list of items is capped: a query of many ids, or an item of many ids, is not.
  std::string ids = "1";
  for (int i = 1; i < 20'000; ++i) ids += ",1";
  const ScoreRequest long_parts =
      parse_score_request(body_of(R"({"label_token_ids": [1], "query": [)" + ids + "]", "items", "[" + ids + "]", 2), 2);
  EXPECT_EQ(std::get<std::vector<int32_t>>(long_parts.query).size(), 20'000u);
  EXPECT_EQ(long_parts.items.size(), 2u);
}

// A refused value is quoted cut (serve/reply.h echoed()), never whole: a 1 MB "mode" does not
// come back as a 1 MB message.
TEST(ServeAdmission, ARefusedValueIsQuotedCut) {
  const std::string huge(1'000'000, 'x');
  for (const std::string& body : {R"({"query": "q", "items": ["a"], "mode": ")" + huge + "\"}",
                                  R"({"query": "q", "items": ["a"], "truncate": ")" + huge + "\"}"}) {
    try {
      parse_label_request(body, 10);
      ADD_FAILURE() << "accepted";
    } catch (const BadRequest& e) {
      EXPECT_LT(std::string(e.what()).size(), 400u) << std::string(e.what()).substr(0, 200);
    }
  }
}

}  // namespace
}  // namespace sift::serve
