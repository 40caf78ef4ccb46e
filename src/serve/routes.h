#pragma once
// Routes: an HTTP application served on sift's HTTP layer (HttpServer::serve) in place of
// `sift serve`'s scoring API; `sift review` is one. The layer keeps what it does for every
// request (deadlines, connection caps, framing rules, the body limit, keep-alive, shutdown);
// the application decides, from the head alone, what it refuses before the body is read
// (authorization, unknown routes), and answers the complete request.
//
// answer() runs on an I/O thread, so it must not wait long (a database read of a page, not a
// model call); it may run on several threads at once. An exception it throws is answered 500
// with its message.
#include <boost/beast/http.hpp>

#include <optional>

#include "serve/reply.h"

namespace sift::serve {

class Routes {
 public:
  using Head = boost::beast::http::request_header<>;
  using Request = boost::beast::http::request<boost::beast::http::string_body>;

  virtual ~Routes() = default;
  // The answer to give at once, without reading the body; nullopt: read it and call answer().
  virtual std::optional<Reply> refusal(const Head& head) const = 0;
  virtual Reply answer(const Request& request) = 0;
};

}  // namespace sift::serve
