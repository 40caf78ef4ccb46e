#pragma once
// HttpSession: one client connection of `sift serve`, from accept to close, on its own strand of
// the server's I/O threads. It never blocks a thread: every wait is an asynchronous operation,
// so an idle or slow connection costs a few KiB of memory, not a thread.
//
//   Idle --first byte--> Head --head read, checked--> Body --body read--> Working --> Sending
//     ^   (--keep-alive-seconds)  (--head-timeout-seconds)   (--body-timeout-seconds)     |
//     +---------------------- keep-alive, next request (pipelined: already buffered) -----+
//
// A head is read whole into the read buffer (up to its blank line) before Beast parses it, so
// its raw bytes can be checked (head_bytes_refusal). A request's body takes its share of the
// server's --max-buffered-mb (body_budget.h) before it is read, and gives it back once parsed
// or refused; a share that does not fit is answered 503 and the connection closed.
//
// Requests are read one at a time and answered in order (RFC 9112 §9.3.2: a pipelined request
// waits, buffered, until the one before it is answered). A deadline that passes closes the
// connection. While a POST request's job waits for the engines, the session watches the
// socket: a client that closes its end has its queued job dropped (499). A response after
// which the connection cannot go on (an error in the head, Connection: close, shutdown) says
// Connection: close; the session then shuts down its sending side and reads what the client
// still sends for a moment before closing (so the client reads the answer rather than a reset).
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <memory>
#include <string>

#include "serve/allowed_hosts.h"
#include "serve/api_routes.h"
#include "serve/body_budget.h"
#include "serve/connections.h"
#include "serve/http_options.h"
#include "serve/metrics.h"
#include "serve/reply.h"
#include "serve/routes.h"
#include "serve/service.h"

namespace sift::serve {

// What every session shares: the settings, the service once the model is loaded, the metrics,
// the connection list, whether the server is stopping, the names it answers to and its body budget.
// Why the server will not score although its model loaded (its labeler failed its self-test,
// scoring/self_test.h): /health and the scoring routes answer 503 with it. Set once.
struct Unhealthy {
  std::atomic<bool> set{false};
  std::string reason;  // written before `set`
};

struct SessionContext {
  const HttpOptions& options;
  const std::atomic<Service*>& service;
  Metrics& metrics;
  Connections& connections;
  const std::atomic<bool>& stopping;
  const AllowedHosts& hosts;
  BodyBudget& body_budget;
  const RouteTable* api = nullptr;  // the scoring API's routes (null: scoring_api_routes())
  Routes* routes = nullptr;  // set: every request goes to these (routes.h), not to the scoring API
  boost::asio::thread_pool* app_workers = nullptr;  // where the routes' answers run
  const Unhealthy* unhealthy = nullptr;
};

// Starts serving an accepted connection (counted in by Connections::admit from `address`).
void start_session(boost::asio::ip::tcp::socket socket, std::string address, SessionContext& context);
// Answers an accepted connection with `reply` (a 503: a cap is full) and closes it.
void refuse_connection(boost::asio::ip::tcp::socket socket, Reply reply, SessionContext& context);

}  // namespace sift::serve
