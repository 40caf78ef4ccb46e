// The HTTP rules of sift serve around Beast's parser (serve/http_request.h): raw request bytes
// go through Beast's request parser, then check_head says what the server does with them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/buffer.hpp>

#include <string>

#include "serve/http_options.h"
#include "serve/http_request.h"

namespace sift::serve {
namespace {

using ::testing::HasSubstr;

// Parses the head of `bytes` (and as much body as is there); the error Beast gives, if any.
boost::system::error_code parse(RequestParser& parser, const std::string& bytes) {
  parser.header_limit(kMaxHeadBytes);
  parser.body_limit(1000);
  boost::system::error_code error;
  size_t used = 0;
  while (used < bytes.size() && !parser.is_done()) {
    const size_t n = parser.put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), error);
    if (error == http::error::need_more) return {};
    if (error) return error;
    if (n == 0) break;
    used += n;
  }
  return error;
}

HeadVerdict verdict_of(const std::string& bytes, HeadRules rules = {.api_key = nullptr, .service_ready = true}) {
  RequestParser parser;
  const boost::system::error_code error = parse(parser, bytes);
  EXPECT_FALSE(error) << error.message() << " for " << bytes;
  EXPECT_TRUE(parser.is_header_done()) << bytes;
  return check_head(parser, rules);
}

TEST(HttpRequest, RoutesByMethodAndPathIgnoringTheQueryString) {
  EXPECT_EQ(route_of(http::verb::get, "/health"), Route::Health);
  EXPECT_EQ(route_of(http::verb::head, "/metrics?x=1"), Route::Metrics);
  EXPECT_EQ(route_of(http::verb::get, "/v1/models#top"), Route::Models);
  EXPECT_EQ(route_of(http::verb::post, "/v1/label"), Route::Label);
  EXPECT_EQ(route_of(http::verb::post, "/v1/score?debug"), Route::Score);
  EXPECT_EQ(route_of(http::verb::post, "/v1/rerank"), Route::Rerank);
  for (auto [method, target] : {std::pair{http::verb::get, "/v1/label"}, {http::verb::post, "/health"},
                                {http::verb::delete_, "/v1/score"}, {http::verb::get, "/v1/label/"},
                                {http::verb::get, "http://x/health"}, {http::verb::get, ""}})
    EXPECT_EQ(route_of(method, target), Route::None) << target;
  EXPECT_EQ(route_name(Route::None), "other");
}

TEST(HttpRequest, AmbiguousFramingIsRefusedAndTheConnectionClosed) {
  // Beast refuses Content-Length and chunked together itself (either order).
  for (const std::string head : {"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
                                 "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"}) {
    RequestParser parser;
    const boost::system::error_code error = parse(parser, "POST /v1/label HTTP/1.1\r\n" + head + "\r\n0\r\n\r\n");
    ASSERT_TRUE(error) << head;
    EXPECT_EQ(refusal_of(error, 1000).status, 400);
  }
  // The rest is sift's: a coding Beast lets through as "no body", or with a Content-Length.
  for (const std::string head : {"Transfer-Encoding: gzip\r\nContent-Length: 5\r\n", "Transfer-Encoding: chunked, gzip\r\n",
                                 "Transfer-Encoding: gzip\r\n", "Transfer-Encoding: gzip\r\nTransfer-Encoding: x\r\n"}) {
    const HeadVerdict verdict = verdict_of("POST /v1/label HTTP/1.1\r\n" + head + "\r\n");
    ASSERT_TRUE(verdict.refusal) << head;
    EXPECT_EQ(verdict.refusal->status, 400) << head;
    EXPECT_TRUE(verdict.close) << head;
  }
  const HeadVerdict two_codings = verdict_of("POST /v1/label HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n");
  ASSERT_TRUE(two_codings.refusal);
  EXPECT_EQ(two_codings.refusal->status, 501);
  EXPECT_TRUE(two_codings.close);
  EXPECT_FALSE(verdict_of("POST /v1/label HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n").refusal);
}

TEST(HttpRequest, HeadChecksInOrderAndWhetherTheConnectionCanGoOn) {
  const ApiKey key = ApiKey::of("k");
  const HeadRules with_key{.api_key = &key, .service_ready = true};
  // No key: 401, kept open when there is no body to skip, closed when there is.
  HeadVerdict v = verdict_of("GET /v1/models HTTP/1.1\r\n\r\n", with_key);
  ASSERT_TRUE(v.refusal);
  EXPECT_EQ(v.refusal->status, 401);
  EXPECT_FALSE(v.close);
  v = verdict_of("POST /v1/label HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", with_key);
  EXPECT_EQ(v.refusal->status, 401);
  EXPECT_TRUE(v.close);
  EXPECT_FALSE(verdict_of("GET /health HTTP/1.1\r\n\r\n", with_key).refusal) << "/health needs no key";
  EXPECT_EQ(verdict_of("GET /nope HTTP/1.1\r\n\r\n", with_key).refusal->status, 401) << "the key before the route";
  EXPECT_FALSE(verdict_of("POST /v1/label HTTP/1.1\r\nAuthorization: Bearer k\r\nContent-Length: 2\r\n\r\n{}", with_key).refusal);

  v = verdict_of("DELETE /v1/score HTTP/1.1\r\n\r\n");
  EXPECT_EQ(v.refusal->status, 404);
  EXPECT_THAT(v.refusal->body["message"].get<std::string>(), HasSubstr("no route for DELETE /v1/score"));
  v = verdict_of("POST /v1/label HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
  EXPECT_FALSE(v.refusal);
  EXPECT_TRUE(v.send_continue);
  EXPECT_EQ(verdict_of("POST /v1/label HTTP/1.1\r\nExpect: magic\r\nContent-Length: 2\r\n\r\n").refusal->status, 417);
  v = verdict_of("POST /v1/label HTTP/1.1\r\nContent-Length: 2\r\n\r\n",
                 {.api_key = nullptr, .service_ready = false});
  EXPECT_EQ(v.refusal->status, 503);
  EXPECT_EQ(v.refusal->headers.at(0), (std::pair<std::string, std::string>{"Retry-After", "1"}));
}

TEST(HttpRequest, ParserRefusalsAreAnsweredByWhatWasTooLargeOrUnreadable) {
  RequestParser head_too_large;
  const auto error = parse(head_too_large, "GET /health HTTP/1.1\r\nX: " + std::string(kMaxHeadBytes, 'y') + "\r\n\r\n");
  EXPECT_EQ(refusal_of(error, 1000).status, 431);
  RequestParser length_too_large;  // refused with the head: the body is never read
  EXPECT_EQ(refusal_of(parse(length_too_large, "POST /v1/label HTTP/1.1\r\nContent-Length: 1001\r\n\r\n"), 1000).status,
            413);
  RequestParser chunks_too_large;
  const auto body_error = parse(chunks_too_large, "POST /v1/label HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3e9\r\n");
  EXPECT_EQ(refusal_of(body_error, 1000).status, 413);
  RequestParser garbage;
  EXPECT_EQ(refusal_of(parse(garbage, "GARBAGE\r\n\r\n"), 1000).status, 400);
}

TEST(HttpRequest, ResponsesCarryLengthKeepAliveAndNoBodyForHead) {
  const Reply reply{200, {{"status", "ok"}}, {{"Retry-After", "2"}}, {}};
  Response r = to_response(reply, 11, true, false);
  EXPECT_EQ(r.body(), R"({"status":"ok"})");
  EXPECT_EQ(r[http::field::content_length], "15");
  EXPECT_EQ(r[http::field::retry_after], "2");
  EXPECT_TRUE(r.keep_alive());
  r = to_response(reply, 11, false, true);
  EXPECT_EQ(r.body(), "");
  EXPECT_EQ(r[http::field::content_length], "15") << "HEAD: the length GET would send";
  EXPECT_FALSE(r.keep_alive());
  EXPECT_EQ(to_response(error_reply(499, "gone"), 11, false, false).reason(), "Client Closed Request");
}

}  // namespace
}  // namespace sift::serve
