#pragma once
// The HTTP rules of `sift serve` around Beast's request parser, with no I/O (the session,
// http_session.h, does that; the fuzzer drives these through Beast's parser directly):
//
//   route_of       method + path -> the route (GET routes answer HEAD too; a query string is
//                  ignored); anything else is no route (404)
//   check_head     what a parsed head allows: read the body and answer, or refuse at once
//                  (framing RFC 9112 forbids, Expect, auth, route, still loading); the body's
//                  size is the parser's body_limit (a Content-Length over it fails the head)
//   refusal_of     the answer to a request Beast's parser refused
//   to_response    a Reply as the Beast response to write
//
// Framing (RFC 9112 §6): a body is delimited by Content-Length or by the chunked coding,
// never both. A request with both, with a Transfer-Encoding whose last coding is not chunked,
// or with another coding than chunked is refused and the connection closed: a proxy in front
// that read the framing differently would otherwise let a second, hidden request through
// ("request smuggling").
#include <boost/beast/http.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

#include "serve/api_key.h"
#include "serve/reply.h"
#include "serve/routes.h"

namespace sift::serve {

namespace http = boost::beast::http;
using RequestParser = http::request_parser<http::string_body>;
using Response = http::response<http::string_body>;

enum class Route { None, Health, Models, Metrics, Label, Score, Rerank, App /* Routes::answer */ };

Route route_of(http::verb method, std::string_view target);
// The route's name in metrics: its path, or "other" for Route::None (so random paths cannot
// grow the metrics without bound).
std::string_view route_name(Route route);
bool is_post(Route route);

struct HeadRules {
  const ApiKey* api_key = nullptr;  // every route but /health needs it, when set
  bool service_ready = false;       // the model is loaded (else POST routes and /v1/models get 503)
  const Routes* routes = nullptr;   // an application's routes instead of the scoring API's (its own auth)
};

// What the head of a request allows.
struct HeadVerdict {
  Route route = Route::None;
  std::optional<Reply> refusal;  // answer this at once, without reading the body
  bool close = false;            // then close the connection (its framing is unknown, or its body unread)
  bool send_continue = false;    // "Expect: 100-continue": send "100 Continue" before reading the body
};

// `parser` has read a head (is_header_done()).
HeadVerdict check_head(const RequestParser& parser, const HeadRules& rules);

// The answer to a request Beast's parser refused with `error` (the connection is then closed):
// 431 for a head over kMaxHeadBytes, 413 for a body over --max-body-mb, else 400 naming what
// could not be read.
Reply refusal_of(boost::system::error_code error, int64_t max_body_bytes);

// The response to write: the reply's JSON (or text), its headers, Content-Length and
// Connection for `keep_alive` (in the request's HTTP `version`); a HEAD request gets the head only.
Response to_response(const Reply& reply, unsigned version, bool keep_alive, bool head_only);

}  // namespace sift::serve
