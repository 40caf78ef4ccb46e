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

// `what` failed with `error`: a TransportError in words.
TransportError failure(std::string_view what, const beast::error_code& error, std::chrono::milliseconds timeout) {
  if (error == beast::error::timeout)
    return TransportError(fmt::format("{}: no answer within {:.3g} s", what, timeout.count() / 1000.0), true);
  return TransportError(fmt::format("{}: {}", what, error.message()));
}

}  // namespace

HttpConnection::HttpConnection(Endpoint endpoint) : endpoint_(std::move(endpoint)), state_(std::make_unique<State>()) {}
HttpConnection::~HttpConnection() { state_->close(); }

HttpAnswer HttpConnection::get(const std::string& path, std::chrono::milliseconds timeout) {
  return exchange(false, path, {}, timeout);
}

HttpAnswer HttpConnection::post(const std::string& path, const std::string& body, std::chrono::milliseconds timeout) {
  return exchange(true, path, body, timeout);
}

HttpAnswer HttpConnection::exchange(bool post, const std::string& path, const std::string& body,
                                    std::chrono::milliseconds timeout) {
  State& s = *state_;
  // A kept-alive connection may have been closed by the server meanwhile (its keep-alive
  // timeout): a send or read that fails on it at once is tried again on a new connection.
  for (int attempt = 0;; ++attempt) {
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
      request.set(http::field::host, endpoint_.host + ":" + endpoint_.port);
      request.set(http::field::user_agent, "sift");
      request.keep_alive(true);
      if (post) {
        request.set(http::field::content_type, "application/json");
        request.body() = body;
      }
      request.prepare_payload();
      beast::error_code error = s.run([&](auto&& done) { http::async_write(*s.stream, request, done); });
      if (error) throw failure("sending the request failed", error, timeout);
      http::response_parser<http::string_body> parser;
      parser.body_limit(kMaxAnswerBytes);
      error = s.run([&](auto&& done) { http::async_read(*s.stream, s.buffer, parser, done); });
      if (error) throw failure("reading the answer failed", error, timeout);
      http::response<http::string_body> answer = parser.release();
      if (!answer.keep_alive()) s.close();
      else s.stream->expires_never();
      return {static_cast<int>(answer.result_int()), std::move(answer.body()), retry_after_of(answer)};
    } catch (const TransportError& e) {
      s.close();
      if (!reused || attempt > 0 || e.timed_out) throw;
    }
  }
}

}  // namespace sift::remote
