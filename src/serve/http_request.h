#pragma once
// The HTTP rules of `sift serve` around Beast's request parser, with no I/O (the session,
// http_session.h, does that; the fuzzer drives these through Beast's parser directly):
//
//   check_head finds a request's route in the route table (api_routes.h: GET routes answer
//   HEAD too; a query string is ignored); anything else is no route: 405 with Allow for a known
//   path, 404 for an unknown one
//   head_bytes_refusal what the raw bytes of a head may not hold, seen before Beast parses them
//   check_head         what a parsed head allows: read the body and answer, or refuse at once
//                      (framing RFC 9112 forbids, Host, Origin, Expect, auth, route, still
//                      loading, Content-Type); the body's size is the parser's body_limit (a
//                      Content-Length over it fails the head)
//   refusal_of         the answer to a request Beast's parser refused
//   to_response        a Reply as the Beast response to write
//
// Framing (RFC 9112 §6): a body is delimited by Content-Length or by the chunked coding,
// never both. A request with both, with a Transfer-Encoding whose last coding is not chunked,
// with another coding than chunked, with a Transfer-Encoding in HTTP/1.0, or with a field
// folded onto a second line (obs-fold) is refused and the connection closed: a proxy in front
// that read the framing differently would otherwise let a second, hidden request through
// ("request smuggling").
//
// Host (RFC 9112 §3.2): an HTTP/1.1 request names one Host (400 otherwise). A target in
// absolute form ("POST http://host/v1/label") is routed by its path, its authority taken as the
// Host. While no API key guards the server, Host and Origin must pass AllowedHosts
// (allowed_hosts.h: 421, 403).
//
// Content-Type: a JSON route's body must be sent as application/json (parameters such as
// charset allowed); anything else, or none, is 415. A page of any site can make a browser send
// text/plain, application/x-www-form-urlencoded, multipart/form-data or a body of no type
// without asking the server first (no CORS preflight), but never application/json.
#include <boost/beast/http.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

#include "serve/allowed_hosts.h"
#include "serve/api_routes.h"
#include "serve/api_key.h"
#include "serve/reply.h"
#include "serve/routes.h"

namespace sift::serve {

namespace http = boost::beast::http;
using RequestParser = http::request_parser<http::string_body>;
using Response = http::response<http::string_body>;

struct HeadRules {
  const ApiKey* api_key = nullptr;  // every route but /health needs it, when set
  bool service_ready = false;       // the model is loaded (else POST routes and /v1/models get 503)
  const std::string* unhealthy = nullptr;  // set: why the labeler is refused (its self-test): the reason of that 503
  const RouteTable* api = nullptr;  // the scoring API's routes (null: scoring_api_routes())
  const Routes* routes = nullptr;   // an application's routes instead of the scoring API's (its own auth)
  const AllowedHosts* hosts = nullptr;  // set (no key guards the server): Host and Origin must pass it
  std::string_view client = {};         // the peer's address, for the routes
};

// What the head of a request allows.
struct HeadVerdict {
  const ApiRoute* route = nullptr;  // the scoring API's route (null: none, or an application's)
  bool app = false;                 // an application's request (HeadRules::routes): Routes::answer
  std::optional<Reply> refusal;  // answer this at once, without reading the body
  bool close = false;            // then close the connection (its framing is unknown, or its body unread)
  bool send_continue = false;    // "Expect: 100-continue": send "100 Continue" before reading the body
};

// `head` is the bytes of a request head, up to and with its blank line, before Beast parses
// them: a field continued on the next line (obs-fold, RFC 9112 §5.2) gets 400.
std::optional<Reply> head_bytes_refusal(std::string_view head);

// `parser` has read a head (is_header_done()). A target in absolute form is rewritten to its
// path (origin form), its authority set as the Host, so whatever reads the head after sees one form.
HeadVerdict check_head(RequestParser& parser, const HeadRules& rules);

// 415 unless the head says "Content-Type: application/json" (with parameters or not): the rule
// of every route whose body is JSON.
std::optional<Reply> json_body_refusal(const http::request_header<>& head);

// The answer to a request Beast's parser refused with `error` (the connection is then closed):
// 431 for a head over kMaxHeadBytes, 413 for a body over --max-body-mb, else 400 naming what
// could not be read.
Reply refusal_of(boost::system::error_code error, int64_t max_body_bytes);

// The response to write: the reply's JSON (or text), its headers, Content-Length and
// Connection for `keep_alive` (in the request's HTTP `version`); a HEAD request gets the head only.
Response to_response(const Reply& reply, unsigned version, bool keep_alive, bool head_only);

}  // namespace sift::serve
