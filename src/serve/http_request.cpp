#include "serve/http_request.h"

#include <fmt/format.h>

#include <boost/beast/core/string.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "serve/http_options.h"

namespace sift::serve {
namespace {

namespace beast = boost::beast;

// The transfer codings of every Transfer-Encoding field, in order, as written.
std::vector<beast::string_view> transfer_codings(const http::request_header<>& head) {
  std::vector<beast::string_view> codings;
  for (auto [field, end] = head.equal_range(http::field::transfer_encoding); field != end; ++field)
    for (const auto& coding : http::token_list(field->value())) codings.push_back(coding);
  return codings;
}

std::string_view view(beast::string_view text) { return {text.data(), text.size()}; }

// Why the body's framing cannot be trusted (RFC 9112 §6.1), or nullopt.
std::optional<Reply> framing_refusal(const http::request_header<>& head) {
  const bool has_length = head.count(http::field::content_length) > 0;
  if (head.count(http::field::transfer_encoding) == 0) return std::nullopt;
  if (head.version() < 11)
    return error_reply(400, "Transfer-Encoding is not HTTP/1.0, so this request's body has no known length; send "
                            "Content-Length (RFC 9112 section 6.1)");
  if (has_length)
    return error_reply(400, "the request has both Transfer-Encoding and Content-Length, so its body's length is "
                            "ambiguous; send one (RFC 9112 section 6.1)");
  const std::vector<beast::string_view> codings = transfer_codings(head);
  if (codings.empty() || !beast::iequals(codings.back(), "chunked"))
    return error_reply(400, "Transfer-Encoding must end with chunked in a request (RFC 9112 section 6.1)");
  if (codings.size() > 1) return error_reply(501, "only the chunked transfer coding is supported");
  return std::nullopt;
}

// An absolute-form target ("http://host/path?query", RFC 9112 §3.2.2) rewritten to its path,
// its authority set as the Host; nullopt when the target is in another form or was rewritten.
std::optional<Reply> to_origin_form(http::request_header<>& head) {
  const std::string_view target = view(head.target());
  if (target.starts_with('/') || target.find("://") == std::string_view::npos) return std::nullopt;
  const std::optional<std::string_view> rest = after_http_scheme(target);
  if (!rest) return error_reply(400, fmt::format("the target \"{}\" is neither a path nor an http URL", echoed(target)));
  const size_t path_start = std::min(rest->find_first_of("/?#"), rest->size());
  const std::string authority(rest->substr(0, path_start));
  if (!parse_authority(authority))
    return error_reply(400, fmt::format("the target \"{}\" names no host[:port]", echoed(target)));
  std::string path(rest->substr(path_start));
  if (!path.starts_with('/')) path.insert(0, "/");
  head.target(path);
  head.set(http::field::host, authority);
  return std::nullopt;
}

// What the Host, and the Origin of a browser's request, allow (RFC 9112 §3.2; allowed_hosts.h).
std::optional<Reply> host_refusal(http::request_header<>& head, const AllowedHosts* hosts) {
  const size_t n_hosts = head.count(http::field::host);
  if (n_hosts > 1) return error_reply(400, "the request has more than one Host (RFC 9112 section 3.2)");
  if (n_hosts == 0 && head.version() >= 11)
    return error_reply(400, "an HTTP/1.1 request must name its Host (RFC 9112 section 3.2)");
  if (std::optional<Reply> form = to_origin_form(head)) return form;
  if (n_hosts == 1 && !parse_authority(view(head[http::field::host])))
    return error_reply(400, fmt::format("the Host \"{}\" is not host[:port]", echoed(view(head[http::field::host]))));
  if (!hosts) return std::nullopt;
  const std::string_view host = view(head[http::field::host]);
  if (n_hosts == 1 && !hosts->allows_host(host))
    return error_reply(421, fmt::format("this server does not answer to the name \"{}\": call it by localhost, an IP "
                                        "address or its --host, or start it with --allowed-host NAME (or "
                                        "--api-key-file)", echoed(host)));
  for (auto [field, end] = head.equal_range(http::field::origin); field != end; ++field)
    if (!hosts->allows_origin(view(field->value()), host))
      return error_reply(403, fmt::format("a page of \"{}\" may not send requests to this server (Origin); serve "
                                          "it from an --allowed-host", echoed(view(field->value()))));
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

std::optional<Reply> head_bytes_refusal(std::string_view head) {
  for (size_t at = head.find("\r\n"); at != std::string_view::npos; at = head.find("\r\n", at + 2))
    if (at + 2 < head.size() && (head[at + 2] == ' ' || head[at + 2] == '\t'))
      return error_reply(400, fmt::format("line {} of the head begins with white space: a field continued on a second "
                                          "line (obs-fold) is not accepted (RFC 9112 section 5.2)",
                                          1 + std::count(head.begin(), head.begin() + static_cast<std::ptrdiff_t>(at) + 2, '\n')));
  return std::nullopt;
}

std::optional<Reply> json_body_refusal(const http::request_header<>& head) {
  if (head.count(http::field::content_type) > 1) return error_reply(415, "the request has more than one Content-Type");
  const auto field = head.find(http::field::content_type);
  const std::string_view type = field == head.end() ? std::string_view() : view(field->value());
  std::string_view media_type = type.substr(0, type.find(';'));
  while (media_type.ends_with(' ') || media_type.ends_with('\t')) media_type.remove_suffix(1);
  if (beast::iequals(beast::string_view(media_type.data(), media_type.size()), "application/json")) return std::nullopt;
  return error_reply(415, fmt::format("the body must be JSON sent as \"Content-Type: application/json\" (got {}): a "
                                      "page of any site can make a browser send other types here",
                                      field == head.end() ? "none" : fmt::format("\"{}\"", echoed(type))));
}

HeadVerdict check_head(RequestParser& parser, const HeadRules& rules) {
  http::request_header<>& head = parser.get().base();
  const RouteTable& api = rules.api ? *rules.api : scoring_api_routes();
  HeadVerdict verdict;
  verdict.route = find_route(api, head.method(), view(head.target()));
  const bool has_body = parser.chunked() || parser.content_length().value_or(0) > 0;
  // An error found in the head leaves the body unread: the connection then cannot go on.
  const auto refuse = [&](Reply reply, bool close) {
    verdict.refusal = std::move(reply);
    verdict.close = close || has_body;
    return verdict;
  };

  if (std::optional<Reply> framing = framing_refusal(head)) return refuse(std::move(*framing), true);
  std::optional<Reply> host = host_refusal(head, rules.hosts);  // first rewrites an absolute-form target
  verdict.route = find_route(api, head.method(), view(head.target()));
  if (host) return refuse(std::move(*host), false);
  const auto expect = head.find(http::field::expect);
  const bool expects_continue = expect != head.end() && beast::iequals(expect->value(), "100-continue");
  if (expect != head.end() && !expects_continue)
    return refuse(error_reply(417, "the only Expect this server meets is 100-continue"), true);
  if (rules.routes) {  // an application's routes (routes.h) in place of the scoring API's
    verdict.route = nullptr;
    verdict.app = true;
    if (std::optional<Reply> refusal = rules.routes->refusal(head, rules.client)) return refuse(std::move(*refusal), false);
    verdict.send_continue = expects_continue && has_body && head.version() >= 11 && !parser.is_done();
    return verdict;
  }
  if (rules.api_key && (!verdict.route || verdict.route->needs_key)) {
    const auto authorization = head.find(http::field::authorization);
    const std::string_view given = authorization == head.end() ? std::string_view() : view(authorization->value());
    if (!rules.api_key->accepts(given)) return refuse(unauthorized(), false);
  }
  if (!verdict.route) {
    const std::string_view path = path_of(view(head.target()));
    const std::string allow = allowed_methods(api, path);
    if (allow.empty())
      return refuse(error_reply(404, fmt::format("no route for {} {}", echoed(view(head.method_string())), echoed(path))),
                    false);
    Reply reply = error_reply(405, fmt::format("{} takes {}, not {}", path, allow, echoed(view(head.method_string()))));
    reply.headers.emplace_back("Allow", allow);
    return refuse(std::move(reply), false);
  }
  if (!rules.service_ready && verdict.route->needs_model)
    return refuse(rules.unhealthy ? error_reply(503, *rules.unhealthy) : retry_reply(503, "the model is loading"), false);
  if (verdict.route->method == ApiRoute::Method::Post)
    if (std::optional<Reply> type = json_body_refusal(head)) return refuse(std::move(*type), false);
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
