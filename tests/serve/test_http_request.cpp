// The HTTP rules of sift serve around Beast's parser (serve/http_request.h): raw request bytes
// go through Beast's request parser, then check_head says what the server does with them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/buffer.hpp>

#include <fmt/format.h>

#include <string>

#include "core/error.h"
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

// The path of the scoring API's route for method + target, "" for none.
std::string route_of(http::verb method, std::string_view target) {
  const ApiRoute* route = find_route(scoring_api_routes(), method, target);
  return route ? route->path : "";
}

TEST(HttpRequest, RoutesByMethodAndPathIgnoringTheQueryString) {
  EXPECT_EQ(route_of(http::verb::get, "/health"), "/health");
  EXPECT_EQ(route_of(http::verb::head, "/metrics?x=1"), "/metrics");
  EXPECT_EQ(route_of(http::verb::get, "/v1/models#top"), "/v1/models");
  EXPECT_EQ(route_of(http::verb::post, "/v1/label"), "/v1/label");
  EXPECT_EQ(route_of(http::verb::post, "/v1/score?debug"), "/v1/score");
  EXPECT_EQ(route_of(http::verb::post, "/v1/rerank"), "/v1/rerank");
  for (auto [method, target] : {std::pair{http::verb::get, "/v1/label"}, {http::verb::post, "/health"},
                                {http::verb::delete_, "/v1/score"}, {http::verb::get, "/v1/label/"},
                                {http::verb::get, "http://x/health"}, {http::verb::get, ""}})
    EXPECT_EQ(route_of(method, target), "") << target;
  // The rerank route under the paths Cohere's v2 SDK, Jina, TEI and llama-server call.
  EXPECT_EQ(route_of(http::verb::post, "/v2/rerank"), "/v2/rerank");
  EXPECT_EQ(route_of(http::verb::post, "/rerank?x"), "/rerank");
  // Only /health is answered without the key; only /health and /metrics while the model loads.
  for (const ApiRoute& route : scoring_api_routes()) {
    EXPECT_EQ(route.needs_key, route.path != "/health") << route.path;
    EXPECT_EQ(route.needs_model, route.path != "/health" && route.path != "/metrics") << route.path;
  }
}

TEST(HttpRequest, AKnownPathTakesItsMethodsAndAnotherIsNoRoute) {
  const auto allowed_methods = [](std::string_view path) { return serve::allowed_methods(scoring_api_routes(), path); };
  EXPECT_EQ(allowed_methods("/health"), "GET, HEAD");
  EXPECT_EQ(allowed_methods("/v1/models?x"), "GET, HEAD");
  for (const char* path : {"/v1/label", "/v1/score", "/v1/rerank", "/v2/rerank", "/rerank"})
    EXPECT_EQ(allowed_methods(path), "POST") << path;
  for (const char* path : {"/v1/label/", "/v2/label", "/", "", "/rerank/x"}) EXPECT_EQ(allowed_methods(path), "") << path;

  HeadVerdict v = verdict_of("GET /v1/label HTTP/1.1\r\nHost: localhost\r\n\r\n");
  ASSERT_TRUE(v.refusal);
  EXPECT_EQ(v.refusal->status, 405);
  EXPECT_EQ(v.refusal->headers, (std::vector<std::pair<std::string, std::string>>{{"Allow", "POST"}}));
  v = verdict_of("OPTIONS /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
  ASSERT_TRUE(v.refusal);
  EXPECT_EQ(v.refusal->status, 405);
  EXPECT_EQ(v.refusal->headers, (std::vector<std::pair<std::string, std::string>>{{"Allow", "GET, HEAD"}}));
  v = verdict_of("GET /v1/nothing HTTP/1.1\r\nHost: localhost\r\n\r\n");
  ASSERT_TRUE(v.refusal);
  EXPECT_EQ(v.refusal->status, 404);
  EXPECT_TRUE(v.refusal->headers.empty());
}

TEST(HttpRequest, AmbiguousFramingIsRefusedAndTheConnectionClosed) {
  // Beast refuses Content-Length and chunked together itself (either order).
  for (const std::string head : {"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
                                 "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"}) {
    RequestParser parser;
    const boost::system::error_code error = parse(parser, "POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" + head + "\r\n0\r\n\r\n");
    ASSERT_TRUE(error) << head;
    EXPECT_EQ(refusal_of(error, 1000).status, 400);
  }
  // The rest is sift's: a coding Beast lets through as "no body", or with a Content-Length.
  for (const std::string head : {"Transfer-Encoding: gzip\r\nContent-Length: 5\r\n", "Transfer-Encoding: chunked, gzip\r\n",
                                 "Transfer-Encoding: gzip\r\n", "Transfer-Encoding: gzip\r\nTransfer-Encoding: x\r\n"}) {
    const HeadVerdict verdict = verdict_of("POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" + head + "\r\n");
    ASSERT_TRUE(verdict.refusal) << head;
    EXPECT_EQ(verdict.refusal->status, 400) << head;
    EXPECT_TRUE(verdict.close) << head;
  }
  const HeadVerdict two_codings = verdict_of("POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n");
  ASSERT_TRUE(two_codings.refusal);
  EXPECT_EQ(two_codings.refusal->status, 501);
  EXPECT_TRUE(two_codings.close);
  EXPECT_FALSE(verdict_of("POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: Chunked\r\n\r\n").refusal);
}

TEST(HttpRequest, HeadChecksInOrderAndWhetherTheConnectionCanGoOn) {
  const ApiKey key = ApiKey::of("k");
  const HeadRules with_key{.api_key = &key, .service_ready = true};
  // No key: 401, kept open when there is no body to skip, closed when there is.
  HeadVerdict v = verdict_of("GET /v1/models HTTP/1.1\r\nHost: localhost\r\n\r\n", with_key);
  ASSERT_TRUE(v.refusal);
  EXPECT_EQ(v.refusal->status, 401);
  EXPECT_FALSE(v.close);
  v = verdict_of("POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", with_key);
  EXPECT_EQ(v.refusal->status, 401);
  EXPECT_TRUE(v.close);
  EXPECT_FALSE(verdict_of("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", with_key).refusal) << "/health needs no key";
  EXPECT_EQ(verdict_of("GET /nope HTTP/1.1\r\nHost: localhost\r\n\r\n", with_key).refusal->status, 401) << "the key before the route";
  EXPECT_FALSE(verdict_of("POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAuthorization: Bearer k\r\nContent-Length: 2\r\n\r\n{}", with_key).refusal);

  v = verdict_of("DELETE /v1/score HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(v.refusal->status, 405);
  EXPECT_THAT(v.refusal->body["message"].get<std::string>(), HasSubstr("/v1/score takes POST, not DELETE"));
  v = verdict_of("DELETE /v1/scores HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(v.refusal->status, 404);
  EXPECT_THAT(v.refusal->body["message"].get<std::string>(), HasSubstr("no route for DELETE /v1/scores"));
  v = verdict_of("POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
  EXPECT_FALSE(v.refusal);
  EXPECT_TRUE(v.send_continue);
  EXPECT_EQ(verdict_of("POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: magic\r\nContent-Length: 2\r\n\r\n").refusal->status, 417);
  v = verdict_of("POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n",
                 {.api_key = nullptr, .service_ready = false});
  EXPECT_EQ(v.refusal->status, 503);
  EXPECT_EQ(v.refusal->headers.at(0), (std::pair<std::string, std::string>{"Retry-After", "1"}));
}

TEST(HttpRequest, HttpOneZeroWithATransferEncodingIsRefusedAndClosed) {
  const HeadVerdict v = verdict_of("POST /v1/label HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n");
  ASSERT_TRUE(v.refusal);
  EXPECT_EQ(v.refusal->status, 400);
  EXPECT_THAT(v.refusal->body["message"].get<std::string>(), HasSubstr("Transfer-Encoding is not HTTP/1.0"));
  EXPECT_TRUE(v.close);
}

TEST(HttpRequest, AFieldFoldedOntoASecondLineIsRefused) {
  for (const std::string fold : {"Transfer-Encoding:\r\n chunked\r\n", "Transfer-Encoding: chunked\r\n\tgzip\r\n",
                                 "X-A: b\r\n c\r\n"}) {
    const std::string head = "POST /v1/label HTTP/1.1\r\nHost: localhost\r\n" + fold + "\r\n";
    const std::optional<Reply> refusal = head_bytes_refusal(head);
    ASSERT_TRUE(refusal) << fold;
    EXPECT_EQ(refusal->status, 400);
    EXPECT_THAT(refusal->body["message"].get<std::string>(), HasSubstr("line 4 of the head")) << fold;
  }
  EXPECT_FALSE(head_bytes_refusal("POST /v1/label HTTP/1.1\r\nHost: localhost\r\nX-A: b c\t d\r\n\r\n"));
}

TEST(HttpRequest, AnHttpOneOneRequestNamesOneValidHost) {
  for (const std::string bytes : {"GET /health HTTP/1.1\r\n\r\n", "GET /health HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n",
                                  "GET /health HTTP/1.1\r\nHost: a b\r\n\r\n", "GET /health HTTP/1.1\r\nHost: u@a\r\n\r\n",
                                  "GET /health HTTP/1.1\r\nHost: a:80x\r\n\r\n", "GET /health HTTP/1.1\r\nHost: [::1\r\n\r\n"}) {
    const HeadVerdict v = verdict_of(bytes);
    ASSERT_TRUE(v.refusal) << bytes;
    EXPECT_EQ(v.refusal->status, 400) << bytes;
  }
  EXPECT_FALSE(verdict_of("GET /health HTTP/1.0\r\n\r\n").refusal) << "HTTP/1.0 need not name it";
}

TEST(HttpRequest, WithoutAKeyOnlyTheNamesOfThisServerAndItsOwnPagesAreAnswered) {
  const AllowedHosts hosts("127.0.0.1", {"sift.example"});
  const HeadRules rules{.api_key = nullptr, .service_ready = true, .hosts = &hosts};
  const auto status = [&](const std::string& fields) {
    const HeadVerdict v = verdict_of("GET /v1/models HTTP/1.1\r\n" + fields + "\r\n", rules);
    return v.refusal ? v.refusal->status : 0;
  };
  for (const char* host : {"localhost", "LocalHost:8000", "127.0.0.1:8000", "[::1]:8000", "10.1.2.3", "sift.example",
                           "SIFT.example:443"})
    EXPECT_EQ(status(fmt::format("Host: {}\r\n", host)), 0) << host;
  // DNS rebinding: another site's name, pointed at this machine.
  for (const char* host : {"evil.example", "evil.example:8000", "localhost.evil.example", "127.0.0.1.evil.example", ""})
    EXPECT_EQ(status(fmt::format("Host: {}\r\n", host)), 421) << host;
  const HeadVerdict v = verdict_of("GET /v1/models HTTP/1.1\r\nHost: evil.example\r\n\r\n", rules);
  EXPECT_THAT(v.refusal->body["message"].get<std::string>(), HasSubstr("--allowed-host"));

  // A page of another site (or of no site) may not send requests; the server's own pages may.
  for (const char* origin : {"http://evil.example", "null", "http://10.9.9.9", "file://", "http://localhost.evil.example",
                             "ftp://localhost", "http://u@localhost", "http://localhost/path"})
    EXPECT_EQ(status(fmt::format("Host: 127.0.0.1:8000\r\nOrigin: {}\r\n", origin)), 403) << origin;
  EXPECT_EQ(status("Host: 127.0.0.1:8000\r\nOrigin: http://127.0.0.1:8000\r\nOrigin: http://evil.example\r\n"), 403);
  for (const auto& [host, origin] : {std::pair{"127.0.0.1:8000", "http://127.0.0.1:8000"}, {"localhost:8000", "http://localhost:8000"},
                                     {"10.1.2.3:8000", "http://10.1.2.3:8000"}, {"127.0.0.1:8000", "https://sift.example"},
                                     {"[::1]:8000", "http://[::1]:8000"}})
    EXPECT_EQ(status(fmt::format("Host: {}\r\nOrigin: {}\r\n", host, origin)), 0) << host << " " << origin;

  // With a key, the key is the guard.
  const ApiKey key = ApiKey::of("k");
  const HeadRules keyed{.api_key = &key, .service_ready = true};
  EXPECT_FALSE(verdict_of("GET /v1/models HTTP/1.1\r\nHost: sift.internal\r\nOrigin: http://evil.example\r\n"
                          "Authorization: Bearer k\r\n\r\n",
                          keyed)
                   .refusal);
}

TEST(HttpRequest, AllowedHostNamesAreHostsWithoutAPort) {
  for (const char* bad : {"a:80", "http://a", "a/b", "a b", "", "[::1"})
    EXPECT_THROW(AllowedHosts("127.0.0.1", {bad}), OptionError) << bad;
  EXPECT_NO_THROW(AllowedHosts("::", {"[fe80::1]", "sift.example"}));
}

TEST(HttpRequest, AnAbsoluteFormTargetIsRoutedByItsPathWithItsAuthorityAsTheHost) {
  const AllowedHosts hosts("127.0.0.1", {});
  const HeadRules rules{.api_key = nullptr, .service_ready = true, .hosts = &hosts};
  RequestParser parser;
  ASSERT_FALSE(parse(parser, "POST http://localhost:8000/v1/label?x=1 HTTP/1.1\r\nHost: evil.example\r\n"
                             "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n"));
  const HeadVerdict v = check_head(parser, rules);
  EXPECT_FALSE(v.refusal);
  ASSERT_NE(v.route, nullptr);
  EXPECT_EQ(v.route->path, "/v1/label");
  EXPECT_EQ(parser.get().target(), "/v1/label?x=1");
  EXPECT_EQ(parser.get()[http::field::host], "localhost:8000");
  EXPECT_EQ(verdict_of("GET HTTP://LOCALHOST HTTP/1.1\r\nHost: localhost\r\n\r\n", rules).route, nullptr);
  EXPECT_EQ(verdict_of("GET http://evil.example/health HTTP/1.1\r\nHost: localhost\r\n\r\n", rules).refusal->status, 421);
  EXPECT_EQ(verdict_of("GET ftp://localhost/health HTTP/1.1\r\nHost: localhost\r\n\r\n", rules).refusal->status, 400);
  EXPECT_EQ(verdict_of("GET http://u@localhost/health HTTP/1.1\r\nHost: localhost\r\n\r\n", rules).refusal->status, 400);
}

TEST(HttpRequest, AJsonRouteTakesApplicationJsonOnly) {
  const auto status = [](const std::string& fields) {
    const HeadVerdict v = verdict_of("POST /v1/score HTTP/1.1\r\nHost: localhost\r\n" + fields + "Content-Length: 2\r\n\r\n");
    return v.refusal ? v.refusal->status : 0;
  };
  for (const char* type : {"application/json", "application/json; charset=utf-8", "Application/JSON", "application/json ;x=1"})
    EXPECT_EQ(status(fmt::format("Content-Type: {}\r\n", type)), 0) << type;
  // What a page of any site can make a browser send without a preflight, and the rest.
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                           "application/jsonp", "application/json-seq", "text/json"})
    EXPECT_EQ(status(fmt::format("Content-Type: {}\r\n", type)), 415) << type;
  EXPECT_EQ(status(""), 415) << "no type: a fetch() of a Blob";
  EXPECT_EQ(status("Content-Type: application/json\r\nContent-Type: text/plain\r\n"), 415);
  const HeadVerdict v = verdict_of("POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n");
  EXPECT_THAT(v.refusal->body["message"].get<std::string>(), HasSubstr("Content-Type: application/json"));
  EXPECT_TRUE(v.close) << "its body unread";
}

TEST(HttpRequest, AClientsValueInAMessageIsCut) {
  EXPECT_EQ(echoed("short"), "short");
  const std::string long_value(5000, 'x');
  EXPECT_EQ(echoed(long_value), std::string(64, 'x') + "\u2026(5000 bytes)");
  EXPECT_EQ(echoed(std::string(63, 'x') + "\u00e9" + long_value), std::string(63, 'x') + "\u2026(5065 bytes)")
      << "never half a character";
  const HeadVerdict v = verdict_of("GET /" + std::string(10'000, 'a') + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(v.refusal->status, 404);
  EXPECT_LT(v.refusal->body.dump().size(), 1000u);
  EXPECT_LE(error_reply(400, std::string(100'000, 'm')).body["message"].get<std::string>().size(), kMaxMessageBytes + 20);
}

TEST(HttpRequest, ParserRefusalsAreAnsweredByWhatWasTooLargeOrUnreadable) {
  RequestParser head_too_large;
  const auto error = parse(head_too_large, "GET /health HTTP/1.1\r\nHost: localhost\r\nX: " + std::string(kMaxHeadBytes, 'y') + "\r\n\r\n");
  EXPECT_EQ(refusal_of(error, 1000).status, 431);
  RequestParser length_too_large;  // refused with the head: the body is never read
  EXPECT_EQ(refusal_of(parse(length_too_large, "POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1001\r\n\r\n"), 1000).status,
            413);
  RequestParser chunks_too_large;
  const auto body_error = parse(chunks_too_large, "POST /v1/label HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n3e9\r\n");
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
