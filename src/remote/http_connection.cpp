#include "remote/http_connection.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <charconv>

#include <fmt/format.h>

namespace sift::remote {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

struct HttpConnection::State {
  boost::asio::io_context io;
  std::optional<beast::tcp_stream> stream;  // open when set
  beast::flat_buffer buffer;

  void close() {
    if (stream) {
      beast::error_code ignored;
      stream->socket().shutdown(tcp::socket::shutdown_both, ignored);
      stream->socket().close(ignored);
    }
    stream.reset();
    buffer.clear();
  }
  // Runs the asynchronous operation `start` to its end on this thread; its error.
  template <typename Start>
  beast::error_code run(Start&& start) {
    beast::error_code error;
    bool done = false;
    start([&](beast::error_code e, auto&&...) {
      error = e;
      done = true;
    });
    io.restart();
    io.run();
    if (!done) error = boost::asio::error::operation_aborted;
    return error;
  }
};

namespace {

std::optional<std::chrono::seconds> retry_after_of(const http::response<http::string_body>& answer) {
  const auto it = answer.find(http::field::retry_after);
  if (it == answer.end()) return std::nullopt;
  const std::string_view text(it->value().data(), it->value().size());
  int64_t seconds = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error != std::errc() || end != text.data() + text.size() || seconds < 0) return std::nullopt;  // an HTTP date: the default
  return std::chrono::seconds(seconds);
}

// `what` failed with `error`: a TransportError in words. `before_answer` on a kept-alive
// connection: nothing came back on it, so the engine may have closed it meanwhile (stale).
TransportError failure(std::string_view what, const beast::error_code& error, std::chrono::milliseconds timeout,
                       bool before_answer = false) {
  if (error == beast::error::timeout)
    return TransportError(fmt::format("{}: no answer within {:.3g} s", what, timeout.count() / 1000.0), true);
  return TransportError(fmt::format("{}: {}", what, error.message()), false, before_answer);
}

}  // namespace

HttpConnection::HttpConnection(Endpoint endpoint) : endpoint_(std::move(endpoint)), state_(std::make_unique<State>()) {}
HttpConnection::~HttpConnection() { state_->close(); }

bool HttpConnection::is_open() const { return state_->stream.has_value(); }

HttpAnswer HttpConnection::get(const std::string& path, std::chrono::milliseconds timeout, uint64_t max_answer_bytes) {
  return exchange(false, path, {}, timeout, max_answer_bytes);
}

HttpAnswer HttpConnection::post(const std::string& path, const std::string& body, std::chrono::milliseconds timeout,
                                uint64_t max_answer_bytes) {
  return exchange(true, path, body, timeout, max_answer_bytes);
}

HttpAnswer HttpConnection::exchange(bool post, const std::string& path, const std::string& body,
                                    std::chrono::milliseconds timeout, uint64_t max_answer_bytes) {
  State& s = *state_;
  const bool reused = s.stream.has_value();
  try {
    if (!s.stream) {
      tcp::resolver resolver(s.io);
      beast::error_code error;
      const tcp::resolver::results_type addresses = resolver.resolve(endpoint_.host, endpoint_.port, error);
      if (error) throw TransportError(fmt::format("cannot resolve {}: {}", endpoint_.host, error.message()));
      s.stream.emplace(s.io);
      s.stream->expires_after(timeout);
      error = s.run([&](auto&& done) { s.stream->async_connect(addresses, done); });
      if (error) throw failure("cannot connect", error, timeout);
    }
    s.stream->expires_after(timeout);
    http::request<http::string_body> request{post ? http::verb::post : http::verb::get, endpoint_.prefix + path, 11};
    request.set(http::field::host, endpoint_.authority());
    request.set(http::field::user_agent, "sift");
    request.keep_alive(true);
    if (post) {
      request.set(http::field::content_type, "application/json");
      request.body() = body;
    }
    request.prepare_payload();
    beast::error_code error = s.run([&](auto&& done) { http::async_write(*s.stream, request, done); });
    if (error) throw failure("sending the request failed", error, timeout, reused);
    http::response_parser<http::string_body> parser;
    parser.body_limit(max_answer_bytes);
    // The header first, its Content-Length held against the bound here: Beast 1.74 drops its own
    // body_limit error when the body's first bytes arrive with the header, and reads on.
    error = s.run([&](auto&& done) { http::async_read_header(*s.stream, s.buffer, parser, done); });
    if (!error && parser.content_length().value_or(0) > max_answer_bytes) error = http::error::body_limit;
    if (!error && !parser.is_done())
      error = s.run([&](auto&& done) { http::async_read(*s.stream, s.buffer, parser, done); });
    if (error == http::error::body_limit)
      throw TransportError(fmt::format("answered {} with a body of more than {} bytes, more than this request's "
                                       "answer can be (not read further)",
                                       parser.is_header_done() ? parser.get().result_int() : 0, max_answer_bytes));
    if (error) throw failure("reading the answer failed", error, timeout, reused && !parser.got_some());
    http::response<http::string_body> answer = parser.release();
    if (!answer.keep_alive()) s.close();
    else s.stream->expires_never();
    return {static_cast<int>(answer.result_int()), std::move(answer.body()), retry_after_of(answer)};
  } catch (const TransportError&) {
    s.close();
    throw;
  }
}

}  // namespace sift::remote
