#pragma once
// Routes: an HTTP application served on sift's HTTP layer (HttpServer::serve) in place of
// `sift serve`'s scoring API; `sift review` is one. The layer keeps what it does for every
// request (deadlines, connection caps, framing rules, the body limit, keep-alive, shutdown);
// the application decides, from the head alone, what it refuses before the body is read
// (authorization, unknown routes), and answers the complete request.
//
// refusal() runs on an I/O thread and must not wait. answer() runs on the server's application
// workers (never an I/O thread), so a database that keeps it waiting holds no other
// connection; it may run on several threads at once. An exception it throws is answered 500
// with its message. `client` is the peer's address (a login throttle counts by it).
#include <boost/beast/http.hpp>

#include <optional>
#include <string_view>

#include "serve/reply.h"

namespace sift::serve {

class Routes {
 public:
  using Head = boost::beast::http::request_header<>;
  using Request = boost::beast::http::request<boost::beast::http::string_body>;

  virtual ~Routes() = default;
  // The answer to give at once, without reading the body; nullopt: read it and call answer().
  virtual std::optional<Reply> refusal(const Head& head, std::string_view client) const = 0;
  virtual Reply answer(const Request& request, std::string_view client) = 0;
};

}  // namespace sift::serve
