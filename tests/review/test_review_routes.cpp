// sift review's routes before any I/O: query strings (review/query_string.h) and who may ask
// what (review/review_routes.h), through check_head of sift serve's HTTP layer as the server
// runs them: framing rules first, then the application's refusal.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/buffer.hpp>

#include <filesystem>

#include "review/query_string.h"
#include "review/review_routes.h"
#include "serve/api_requests.h"
#include "serve/http_options.h"
#include "serve/http_request.h"
#include "store/label_store.h"
#include "store/review_store.h"

namespace sift::review {
namespace {

using ::testing::HasSubstr;
namespace http = boost::beast::http;
using Request = serve::Routes::Request;
constexpr std::string_view kClient = "127.0.0.1";  // the address requests come from

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const serve::BadRequest& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(QueryString, DecodesEscapesAndPlusAndRefusesWhatIsMalformed) {
  const QueryParams p("search=a%20b+c&limit=20&order=", {"search", "limit", "order", "offset"});
  EXPECT_EQ(p.text("search", 100), "a b c");
  EXPECT_EQ(p.integer("limit", 1, 500), 20);
  EXPECT_EQ(p.text("order", 10), "");
  EXPECT_FALSE(p.integer("offset", 0, 10).has_value());
  EXPECT_THAT(message_of([] { QueryParams("x=1", {"search"}); }), HasSubstr("unknown parameter \"x\""));
  EXPECT_THAT(message_of([] { QueryParams("search=1&search=2", {"search"}); }), HasSubstr("given twice"));
  for (const char* bad : {"search=%", "search=%4", "search=%zz", "search=%4g"})
    EXPECT_THAT(message_of([&] { QueryParams(bad, {"search"}); }), HasSubstr("two hex digits")) << bad;
  EXPECT_THAT(message_of([] { QueryParams("search=%ff%fe", {"search"}); }), HasSubstr("UTF-8"));
  EXPECT_THAT(message_of([] { QueryParams("search=abcdef", {"search"}).text("search", 3); }), HasSubstr("longer"));
  for (const char* bad : {"n=", "n=1.5", "n=9999999999999999999999", "n=1x", "n= 1"})
    EXPECT_THAT(message_of([&] { QueryParams(bad, {"n"}).integer("n", 0, 100); }), HasSubstr("not an integer")) << bad;
  EXPECT_THAT(message_of([] { QueryParams("n=101", {"n"}).integer("n", 0, 100); }), HasSubstr("not within"));
  for (const char* bad : {"t=nan", "t=inf", "t=1e999", "t=0.5x"})
    EXPECT_THAT(message_of([&] { QueryParams(bad, {"t"}).number("t", 0, 1); }), HasSubstr("finite")) << bad;
  EXPECT_THAT(message_of([] { QueryParams("t=-0.1", {"t"}).number("t", 0, 1); }), HasSubstr("not within"));
  EXPECT_EQ(target_path("/api/members?x=1#y"), "/api/members");
  EXPECT_EQ(target_query("/api/members?x=1#y"), "x=1");
  EXPECT_EQ(target_query("/api/members"), "");
}

// A store with one judged member, and the routes over it with the key "k".
class ReviewRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("sift-review-routes-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    const std::string location = (dir_ / "labels.db").string();
    store::MemberLabels m;
    m.member = "m1";
    m.input_hash = "h";
    m.artifact_version = "v1";
    m.threshold = 0.5;
    m.stop_reason = "max_rounds";
    m.run_id = "r";
    m.labeled_at = "t";
    m.judgments = {{"q1", "Python", 0.7, true, 1, 1}};
    store::LabelStore::open(location, store::LabelStore::Access::write)->replace_member(m);
    api_ = ReviewApi::open(location, ReviewApiOptions{.reviewer = "ann"});
    routes_ = std::make_unique<ReviewRoutes>(*api_, serve::ApiKey::of("k"));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // check_head's verdict on these request bytes.
  serve::HeadVerdict verdict_of(const std::string& bytes, std::string_view client = kClient) {
    serve::RequestParser parser;
    parser.header_limit(serve::kMaxHeadBytes);
    boost::system::error_code error;
    parser.put(boost::asio::buffer(bytes), error);
    EXPECT_TRUE(!error || error == http::error::need_more) << error.message();
    return serve::check_head(parser, {.routes = routes_.get(), .client = client});
  }
  int status_of(const std::string& bytes, std::string_view client = kClient) {
    const serve::HeadVerdict verdict = verdict_of(bytes, client);
    return verdict.refusal ? verdict.refusal->status : 0;  // 0: read the body and answer
  }
  // POST /login with this key.
  serve::Reply log_in(const std::string& key) {
    Request login{http::verb::post, "/login", 11};
    login.body() = "key=" + key;
    return routes_->answer(login, kClient);
  }
  // The session cookie, as a browser gets it by logging in.
  std::string cookie() {
    const serve::Reply reply = log_in("k");
    EXPECT_EQ(reply.status, 303);
    for (const auto& [name, value] : reply.headers)
      if (name == "Set-Cookie") return value.substr(0, value.find(';'));
    ADD_FAILURE() << "no Set-Cookie";
    return "";
  }
  static std::string header(const serve::Reply& reply, const std::string& name) {
    for (const auto& [n, value] : reply.headers)
      if (n == name) return value;
    return "";
  }

  std::filesystem::path dir_;
  std::unique_ptr<ReviewApi> api_;
  std::unique_ptr<ReviewRoutes> routes_;
};

TEST_F(ReviewRoutesTest, WithoutTheKeyEveryRouteButLoginIsRefused) {
  for (const char* target : {"/", "/member?id=m1", "/calibration", "/assets/common.js", "/api/session",
                             "/api/members", "/nowhere", "/api/flips?threshold=0.5"})
    EXPECT_EQ(status_of(fmt::format("GET {} HTTP/1.1\r\nHost: x\r\n\r\n", target)), 401) << target;
  EXPECT_EQ(status_of("GET /api/members HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope\r\n\r\n"), 401);
  EXPECT_EQ(status_of("GET /api/members HTTP/1.1\r\nHost: x\r\nCookie: sift_review=0000\r\n\r\n"), 401);
  EXPECT_EQ(status_of("GET /login HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
  EXPECT_EQ(status_of("POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n"), 0);
  EXPECT_EQ(status_of("GET /api/members HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\n\r\n"), 0);
  EXPECT_EQ(status_of("GET /api/members HTTP/1.1\r\nHost: x\r\nCookie: a=1; " + cookie() + "; b=2\r\n\r\n"), 0);
}

TEST_F(ReviewRoutesTest, EachLoginGetsASessionTokenOfItsOwn) {
  const std::string first = cookie(), second = cookie();
  EXPECT_NE(first, second);
  EXPECT_EQ(first.size(), std::string("sift_review=").size() + 64);
  for (const std::string& c : {first, second})
    EXPECT_EQ(status_of("GET /api/members HTTP/1.1\r\nHost: x\r\nCookie: " + c + "\r\n\r\n"), 0) << c;
  // Another server's session is not one of this server's.
  ReviewRoutes other(*api_, serve::ApiKey::of("k"));
  Request login{http::verb::post, "/login", 11};
  login.body() = "key=k";
  const std::string foreign = header(other.answer(login, kClient), "Set-Cookie");
  EXPECT_EQ(status_of("GET /api/members HTTP/1.1\r\nHost: x\r\nCookie: " + foreign.substr(0, foreign.find(';')) +
                      "\r\n\r\n"),
            401);
}

// Ten wrong keys in a row from one client, at /login or as Bearer: then every key it sends is
// refused (429, Retry-After), the right one too, without being looked at; a session already
// logged in goes on, and another client's key is looked at as before.
TEST_F(ReviewRoutesTest, TenWrongKeysInARowBlockEveryKey) {
  const std::string session = cookie();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(log_in("wrong").status, 401) << i;
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(status_of("GET /api/members HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n\r\n"), 401) << i;
  const serve::Reply blocked = log_in("k");
  EXPECT_EQ(blocked.status, 429);
  EXPECT_GE(std::stoi(header(blocked, "Retry-After")), 1);
  EXPECT_THAT(blocked.body["message"].get<std::string>(), HasSubstr("too many wrong keys"));
  EXPECT_EQ(status_of("GET /api/members HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\n\r\n"), 429);
  EXPECT_EQ(status_of("GET /api/members HTTP/1.1\r\nHost: x\r\nCookie: " + session + "\r\n\r\n"), 0);
  EXPECT_EQ(status_of("GET /api/members HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\n\r\n", "10.0.0.9"), 0);
}

TEST(LoginThrottle, BlocksAfterTenFailuresInARowUntilTheBlockEnds) {
  using namespace std::chrono_literals;
  LoginThrottle throttle;
  const auto t0 = LoginThrottle::Clock::time_point{} + 1000h;
  for (int i = 0; i < 9; ++i) throttle.failed("a", t0);
  throttle.succeeded("a");  // a right key ends the run
  for (int i = 0; i < 9; ++i) throttle.failed("a", t0);
  EXPECT_FALSE(throttle.blocked_for("a", t0).has_value());
  throttle.failed("a", t0);
  EXPECT_EQ(throttle.blocked_for("a", t0), 60);
  EXPECT_EQ(throttle.blocked_for("a", t0 + 59500ms), 1);
  EXPECT_FALSE(throttle.blocked_for("b", t0).has_value()) << "per client";
  EXPECT_FALSE(throttle.blocked_for("a", t0 + 60s).has_value());
  throttle.failed("a", t0 + 60s);
  EXPECT_FALSE(throttle.blocked_for("a", t0 + 60s).has_value()) << "the count starts again after a block";
}

TEST(LoginThrottle, ClientsPastTheLimitShareOneCount) {
  LoginThrottle throttle;
  const auto now = LoginThrottle::Clock::time_point{} + std::chrono::hours(1000);
  for (size_t i = 0; i < LoginThrottle::kMaxClients; ++i)
    for (int f = 0; f < LoginThrottle::kMaxFailures; ++f) throttle.failed("c" + std::to_string(i), now);
  for (int f = 0; f < LoginThrottle::kMaxFailures; ++f) throttle.failed("new " + std::to_string(f), now);
  EXPECT_TRUE(throttle.blocked_for("new 0", now).has_value());
  EXPECT_TRUE(throttle.blocked_for("c0", now).has_value());
  // Once the blocks end, those clients are forgotten and a new one has a count of its own.
  const auto later = now + LoginThrottle::kBlock;
  throttle.failed("later", later);
  EXPECT_FALSE(throttle.blocked_for("later", later).has_value());
  for (int f = 1; f < LoginThrottle::kMaxFailures; ++f) throttle.failed("later", later);
  EXPECT_TRUE(throttle.blocked_for("later", later).has_value());
  EXPECT_FALSE(throttle.blocked_for("c0", later).has_value());
}

TEST_F(ReviewRoutesTest, APostNeedsTheCsrfTokenAndTheFramingRulesStillHold) {
  const std::string auth = "Host: x\r\nAuthorization: Bearer k\r\n";
  EXPECT_EQ(status_of("POST /api/review HTTP/1.1\r\n" + auth + "Content-Length: 2\r\n\r\n"), 403);
  EXPECT_EQ(status_of("POST /api/review HTTP/1.1\r\n" + auth + "X-CSRF-Token: 00\r\nContent-Length: 2\r\n\r\n"), 403);
  Request session{http::verb::get, "/api/session", 11};
  session.set(http::field::authorization, "Bearer k");
  const std::string token = routes_->answer(session, kClient).body["csrf_token"];
  EXPECT_EQ(token.size(), 64u);
  EXPECT_EQ(status_of("POST /api/review HTTP/1.1\r\n" + auth + "X-CSRF-Token: " + token + "\r\nContent-Length: 2\r\n\r\n"), 415);
  EXPECT_EQ(status_of("POST /api/review HTTP/1.1\r\n" + auth + "X-CSRF-Token: " + token +
                      "\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n"),
            415);
  EXPECT_EQ(status_of("POST /api/review HTTP/1.1\r\n" + auth + "X-CSRF-Token: " + token +
                      "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n"),
            0);
  EXPECT_EQ(status_of("POST /api/members HTTP/1.1\r\n" + auth + "Content-Length: 2\r\n\r\n"), 405);
  EXPECT_EQ(status_of("GET /api/nothing HTTP/1.1\r\n" + auth + "\r\n"), 404);
  const serve::HeadVerdict smuggled =
      verdict_of("POST /api/review HTTP/1.1\r\n" + auth + "Transfer-Encoding: gzip\r\n\r\n");
  ASSERT_TRUE(smuggled.refusal.has_value());
  EXPECT_EQ(smuggled.refusal->status, 400);
  EXPECT_TRUE(smuggled.close);

  Request review{http::verb::post, "/api/review", 11};
  review.body() = R"({"member": "m1", "qualification": "q1", "verdict": "wrong", "label": true, "score": 0.7,
                       "threshold": 0.5, "artifact_version": "v1"})";
  const serve::Reply reply = routes_->answer(review, kClient);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body["review"]["true_label"], false);
  review.body() = R"({"member": "m1", "qualification": "q2", "verdict": "wrong", "label": true, "score": 0.7,
                       "threshold": 0.5, "artifact_version": "v1"})";
  EXPECT_EQ(routes_->answer(review, kClient).status, 404);
}

TEST_F(ReviewRoutesTest, EveryAnswerForbidsInlineScriptAndFraming) {
  Request page{http::verb::get, "/member?id=m1", 11};
  const serve::Reply reply = routes_->answer(page, kClient);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.content_type, "text/html; charset=utf-8");
  bool csp = false;
  for (const auto& [name, value] : reply.headers)
    if (name == "Content-Security-Policy") {
      csp = true;
      EXPECT_THAT(value, HasSubstr("script-src 'self'"));
      EXPECT_THAT(value, ::testing::Not(HasSubstr("unsafe-inline")));
      EXPECT_THAT(value, HasSubstr("frame-ancestors 'none'"));
    }
  EXPECT_TRUE(csp);
  EXPECT_THAT(reply.text, ::testing::Not(HasSubstr("innerHTML")));
  for (const char* asset : {"/assets/common.js", "/assets/member.js", "/assets/members.js", "/assets/calibration.js"}) {
    Request get{http::verb::get, asset, 11};
    const serve::Reply script = routes_->answer(get, kClient);
    EXPECT_EQ(script.status, 200) << asset;
    EXPECT_THAT(script.text, ::testing::Not(HasSubstr("innerHTML"))) << asset << ": data goes in as text only";
    EXPECT_THAT(script.text, ::testing::Not(HasSubstr("insertAdjacentHTML"))) << asset;
  }
}

}  // namespace
}  // namespace sift::review
