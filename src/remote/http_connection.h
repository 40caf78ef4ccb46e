#pragma once
// One keep-alive HTTP/1.1 connection to an engine (Boost.Beast over plain TCP), used by one
// thread at a time: a request and its answer within a total deadline (connect, send and
// read together). A failure to connect, send or read, or the deadline passing, is a
// TransportError in words; the connection is then closed and the next exchange reconnects.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "remote/endpoint.h"

namespace sift::remote {

// The largest answer read (a /v1/score answer is about 40 bytes per item).
inline constexpr uint64_t kMaxAnswerBytes = uint64_t{256} << 20;

struct TransportError : std::runtime_error {
  TransportError(const std::string& what, bool timed_out = false) : std::runtime_error(what), timed_out(timed_out) {}
  bool timed_out;  // the deadline passed (else the connection failed)
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

  // GET (empty body) or POST (a JSON body) `path` below the endpoint's prefix.
  HttpAnswer get(const std::string& path, std::chrono::milliseconds timeout);
  HttpAnswer post(const std::string& path, const std::string& body, std::chrono::milliseconds timeout);

 private:
  struct State;
  HttpAnswer exchange(bool post, const std::string& path, const std::string& body, std::chrono::milliseconds timeout);
  Endpoint endpoint_;
  std::unique_ptr<State> state_;
};

}  // namespace sift::remote
