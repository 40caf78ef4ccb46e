#pragma once
// One keep-alive HTTP/1.1 connection to an engine (Boost.Beast over plain TCP), used by one
// thread at a time: a request and its answer within a total deadline (connect, send and
// read together), the answer read up to a bound the caller gives (remote/engine_answers.h):
// a longer one is refused as it arrives, never buffered whole. A failure to connect, send or
// read, the deadline passing, or an answer past its bound is a TransportError in words; the
// connection is then closed and the next exchange opens a new one. A kept-alive connection
// that the engine closed meanwhile fails as `stale`: the caller decides whether to open a
// new one and try again (remote/fleet.h checks the engine's identity on every new one first).
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "remote/endpoint.h"

namespace sift::remote {

struct TransportError : std::runtime_error {
  TransportError(const std::string& what, bool timed_out = false, bool stale = false)
      : std::runtime_error(what), timed_out(timed_out), stale(stale) {}
  bool timed_out;  // the deadline passed (else the connection failed)
  bool stale;      // a kept-alive connection failed before anything was answered on it
};

struct HttpAnswer {
  int status = 0;
  std::string body;
  std::optional<std::chrono::seconds> retry_after;  // Retry-After in seconds, when given so
};

class HttpConnection {
 public:
  explicit HttpConnection(Endpoint endpoint);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // GET (empty body) or POST (a JSON body) `path` below the endpoint's prefix, on the open
  // connection or else a new one; an answer's body of more than `max_answer_bytes` is a
  // TransportError.
  HttpAnswer get(const std::string& path, std::chrono::milliseconds timeout, uint64_t max_answer_bytes);
  HttpAnswer post(const std::string& path, const std::string& body, std::chrono::milliseconds timeout,
                  uint64_t max_answer_bytes);
  // Whether a connection is open: false before the first exchange and after a failed one.
  bool is_open() const;

 private:
  struct State;
  HttpAnswer exchange(bool post, const std::string& path, const std::string& body, std::chrono::milliseconds timeout,
                      uint64_t max_answer_bytes);
  Endpoint endpoint_;
  std::unique_ptr<State> state_;
};

}  // namespace sift::remote
