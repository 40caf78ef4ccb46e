// The scoring API's route table as a server meets it: an HttpServer started in this process on
// a loopback port, with one route added by this test alone (HttpServer::add_route), answers it
// beside sift serve's own routes, with the table's rules: its method (405 with Allow for
// another), its key, whether it waits for the model, its name in the metrics.
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "serve/api_routes.h"
#include "serve/http_server.h"

namespace sift::serve {
namespace {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;

// One request on a fresh connection; the response.
http::response<http::string_body> call(int port, http::verb method, const std::string& target, std::string body = "",
                                       const std::string& key = "") {
  boost::asio::io_context io;
  tcp::socket socket(io);
  boost::asio::connect(socket, tcp::resolver(io).resolve("127.0.0.1", std::to_string(port)));
  http::request<http::string_body> request(method, target, 11);
  request.set(http::field::host, "localhost");
  if (!body.empty()) request.set(http::field::content_type, "application/json");
  if (!key.empty()) request.set(http::field::authorization, "Bearer " + key);
  request.body() = std::move(body);
  request.prepare_payload();
  http::write(socket, request);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(socket, buffer, response);
  return response;
}

// A server with one more route, serving on a thread until the test ends; no model is loaded.
struct ServerWithAnEchoRoute {
  explicit ServerWithAnEchoRoute(std::optional<ApiKey> key = std::nullopt) : server(options(std::move(key)), metrics) {
    server.add_route({ApiRoute::Method::Post, "/v1/echo", /*needs_key=*/true, /*needs_model=*/false,
                      [](RouteCall& call) {
                        Started started;
                        started.reply = Reply{200, {{"echo", std::string(call.body)}, {"loaded", call.service != nullptr}}, {}, {}};
                        return started;
                      }});
    server.add_route({ApiRoute::Method::Get, "/v1/needs-model", true, true, [](RouteCall&) { return Started{}; }});
    server.bind();
    thread = std::thread([this] { server.listen(); });
  }
  ~ServerWithAnEchoRoute() {
    server.stop();
    thread.join();
  }
  static HttpOptions options(std::optional<ApiKey> key) {
    HttpOptions o;
    o.port = 0;
    o.io_threads = 1;
    o.shutdown_grace = Seconds(1);
    o.api_key = std::move(key);
    return o;
  }
  int port() const { return server.port(); }

  Metrics metrics;
  HttpServer server;
  std::thread thread;
};

TEST(ApiRoutes, ARouteAddedToTheTableIsServedWithTheTablesRules) {
  ServerWithAnEchoRoute s;
  auto echoed = call(s.port(), http::verb::post, "/v1/echo?x=1", R"({"a": 1})");
  ASSERT_EQ(echoed.result_int(), 200) << echoed.body();
  EXPECT_NE(echoed.body().find(R"("echo":"{\"a\": 1}")"), std::string::npos) << echoed.body();
  EXPECT_NE(echoed.body().find(R"("loaded":false)"), std::string::npos) << echoed.body();

  auto wrong_method = call(s.port(), http::verb::get, "/v1/echo");
  EXPECT_EQ(wrong_method.result_int(), 405);
  EXPECT_EQ(wrong_method[http::field::allow], "POST");
  // A POST route's body is JSON, as for every scoring route.
  auto text = call(s.port(), http::verb::post, "/v1/echo", "");
  EXPECT_EQ(text.result_int(), 415) << text.body();
  // A route that needs the model waits for it, as /v1/models does.
  EXPECT_EQ(call(s.port(), http::verb::get, "/v1/needs-model").result_int(), 503);
  EXPECT_EQ(call(s.port(), http::verb::get, "/v1/models").result_int(), 503);
  EXPECT_EQ(call(s.port(), http::verb::get, "/v1/nothing").result_int(), 404);
  // sift serve's own routes are still there.
  auto health = call(s.port(), http::verb::get, "/health");
  EXPECT_EQ(health.result_int(), 503);
  EXPECT_NE(health.body().find("loading"), std::string::npos) << health.body();
  auto metrics = call(s.port(), http::verb::get, "/metrics");
  ASSERT_EQ(metrics.result_int(), 200);
  EXPECT_NE(metrics.body().find(R"(sift_requests_total{route="/v1/echo",status="200"} 1)"), std::string::npos)
      << metrics.body();
}

TEST(ApiRoutes, AnAddedRouteNeedsTheKeyWhenItSaysSo) {
  ServerWithAnEchoRoute s(ApiKey::of("k"));
  EXPECT_EQ(call(s.port(), http::verb::post, "/v1/echo", "{}").result_int(), 401);
  EXPECT_EQ(call(s.port(), http::verb::post, "/v1/echo", "{}", "k").result_int(), 200);
  EXPECT_EQ(call(s.port(), http::verb::get, "/health").result_int(), 503);  // no key needed, still loading
}

}  // namespace
}  // namespace sift::serve
