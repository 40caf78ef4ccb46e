#include "serve/http_request.h"

#include <fmt/format.h>

#include <boost/beast/core/string.hpp>

#include <string>
#include <vector>

#include "serve/http_options.h"

namespace sift::serve {
namespace {

namespace beast = boost::beast;

// The path of a request target: up to a query string or fragment.
std::string_view path_of(std::string_view target) { return target.substr(0, target.find_first_of("?#")); }

// The transfer codings of every Transfer-Encoding field, in order, as written.
std::vector<beast::string_view> transfer_codings(const http::request_header<>& head) {
  std::vector<beast::string_view> codings;
  for (auto [field, end] = head.equal_range(http::field::transfer_encoding); field != end; ++field)
    for (const auto& coding : http::token_list(field->value())) codings.push_back(coding);
  return codings;
}

// Why the body's framing cannot be trusted (RFC 9112 §6.1), or nullopt.
std::optional<Reply> framing_refusal(const http::request_header<>& head) {
  const bool has_length = head.count(http::field::content_length) > 0;
  if (head.count(http::field::transfer_encoding) == 0) return std::nullopt;
  if (has_length)
    return error_reply(400, "the request has both Transfer-Encoding and Content-Length, so its body's length is "
                            "ambiguous; send one (RFC 9112 section 6.1)");
  const std::vector<beast::string_view> codings = transfer_codings(head);
  if (codings.empty() || !beast::iequals(codings.back(), "chunked"))
    return error_reply(400, "Transfer-Encoding must end with chunked in a request (RFC 9112 section 6.1)");
  if (codings.size() > 1) return error_reply(501, "only the chunked transfer coding is supported");
  return std::nullopt;
}

Reply unauthorized() {
  Reply reply = error_reply(401, "missing or wrong \"Authorization: Bearer <key>\"");
  reply.headers.emplace_back("WWW-Authenticate", "Bearer");
  return reply;
}

std::string body_limit_message(int64_t max_body_bytes) {
  return fmt::format("the body is larger than --max-body-mb ({} bytes)", max_body_bytes);
}

}  // namespace

Route route_of(http::verb method, std::string_view target) {
  const std::string_view path = path_of(target);
  if (method == http::verb::get || method == http::verb::head) {
    if (path == "/health") return Route::Health;
    if (path == "/v1/models") return Route::Models;
    if (path == "/metrics") return Route::Metrics;
  } else if (method == http::verb::post) {
    if (path == "/v1/label") return Route::Label;
    if (path == "/v1/score") return Route::Score;
    if (path == "/v1/rerank") return Route::Rerank;
  }
  return Route::None;
}

std::string_view route_name(Route route) {
  switch (route) {
    case Route::Health: return "/health";
    case Route::Models: return "/v1/models";
    case Route::Metrics: return "/metrics";
    case Route::Label: return "/v1/label";
    case Route::Score: return "/v1/score";
    case Route::Rerank: return "/v1/rerank";
    case Route::App: return "app";
    case Route::None: break;
  }
  return "other";
}

bool is_post(Route route) { return route == Route::Label || route == Route::Score || route == Route::Rerank; }

HeadVerdict check_head(const RequestParser& parser, const HeadRules& rules) {
  const http::request_header<>& head = parser.get().base();
  HeadVerdict verdict;
  verdict.route = route_of(head.method(), std::string_view(head.target().data(), head.target().size()));
  const bool has_body = parser.chunked() || parser.content_length().value_or(0) > 0;
  // An error found in the head leaves the body unread: the connection then cannot go on.
  const auto refuse = [&](Reply reply, bool close) {
    verdict.refusal = std::move(reply);
    verdict.close = close || has_body;
    return verdict;
  };

  if (std::optional<Reply> framing = framing_refusal(head)) return refuse(std::move(*framing), true);
  const auto expect = head.find(http::field::expect);
  const bool expects_continue = expect != head.end() && beast::iequals(expect->value(), "100-continue");
  if (expect != head.end() && !expects_continue)
    return refuse(error_reply(417, "the only Expect this server meets is 100-continue"), true);
  if (rules.routes) {  // an application's routes (routes.h) in place of the scoring API's
    verdict.route = Route::App;
    if (std::optional<Reply> refusal = rules.routes->refusal(head)) return refuse(std::move(*refusal), false);
    verdict.send_continue = expects_continue && has_body && head.version() >= 11 && !parser.is_done();
    return verdict;
  }
  if (rules.api_key && verdict.route != Route::Health) {
    const auto authorization = head.find(http::field::authorization);
    const std::string_view given =
        authorization == head.end() ? std::string_view() : std::string_view(authorization->value().data(),
                                                                            authorization->value().size());
    if (!rules.api_key->accepts(given)) return refuse(unauthorized(), false);
  }
  if (verdict.route == Route::None) {
    const auto method = head.method_string();
    const auto target = path_of(std::string_view(head.target().data(), head.target().size()));
    return refuse(error_reply(404, fmt::format("no route for {} {}", std::string_view(method.data(), method.size()).substr(0, 16),
                                               target.substr(0, 100))),
                  false);
  }
  if (!rules.service_ready && (is_post(verdict.route) || verdict.route == Route::Models))
    return refuse(retry_reply(503, "the model is loading"), false);
  verdict.send_continue = expects_continue && has_body && head.version() >= 11 && !parser.is_done();
  return verdict;
}

Reply refusal_of(boost::system::error_code error, int64_t max_body_bytes) {
  if (error == http::error::header_limit)
    return error_reply(431, fmt::format("the request head is larger than {} bytes", kMaxHeadBytes));
  if (error == http::error::body_limit) return error_reply(413, body_limit_message(max_body_bytes));
  return error_reply(400, fmt::format("the request could not be read: {}", error.message()));
}

Response to_response(const Reply& reply, unsigned version, bool keep_alive, bool head_only) {
  Response response;
  response.version(version);
  response.result(static_cast<unsigned>(reply.status));
  if (reply.status == 499) response.reason("Client Closed Request");
  for (const auto& [name, value] : reply.headers) response.set(name, value);
  if (reply.text.empty()) {
    response.set(http::field::content_type, "application/json");
    response.body() = reply.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    response.set(http::field::content_type,
                 reply.content_type.empty() ? "text/plain; version=0.0.4" : reply.content_type);
    response.body() = reply.text;
  }
  response.keep_alive(keep_alive);
  response.prepare_payload();
  if (head_only) response.body().clear();  // Content-Length still says what GET would send
  return response;
}

}  // namespace sift::serve
