#pragma once
// HttpServer: the HTTP side of `sift serve`, on Boost.Beast over Boost.Asio.
//
//   the scoring API's routes (api_routes.h): GET /health 200 {"status": "ok"} once the model is
//   loaded, 503 {"status": "loading"} before (no key needed); 503 {"status": "unhealthy",
//   "reason": ...} for good when the labeler failed its self-test (refuse()); GET /v1/models,
//   GET /metrics (metrics.h); POST /v1/label, /v1/score, /v1/rerank (service.h)
//
// Every error is JSON (reply.h: "message", "type", "code", "param" = the field): 400 malformed
// or badly framed, 401 missing or wrong "Authorization: Bearer <key>" (with --api-key-file;
// every route but /health), 403 a page of another site (Origin), 404 unknown route, 415 a body
// not sent as application/json, 421 a Host this server does not answer to (allowed_hosts.h;
// both without a key), 408/431/413 a head or body too slow or too large, 429 queue full, 503
// loading, over a connection cap or the body budget (--max-buffered-mb), or stopping; 504
// deadline.
//
// Threads: --http-threads threads run every connection's reads, writes and timers
// (http_session.h), so connections cost memory, not threads, and a slow client holds nothing
// but its socket. Parsing and tokenizing run there too; the model runs on the engines'
// workers (engine_pool.h), which hand finished jobs back. The listener starts before the
// model loads, so /health can say "loading".
//
// stop() (SIGTERM): stop accepting; close connections whose request is not complete; answer
// the requests being worked on (Connection: close); listen() returns when every connection
// is closed, or after --shutdown-grace-seconds, closing what is left and dropping queued work.
#include <memory>
#include <string>

#include "serve/api_routes.h"
#include "serve/http_options.h"
#include "serve/metrics.h"
#include "serve/routes.h"
#include "serve/service.h"

namespace sift::serve {

class HttpServer {
 public:
  // Raises this process's open-file limit to its hard limit (so 10,000 connections fit) and
  // lowers --max-connections to what it allows. Throws OptionError for an --allowed-host that
  // is not a host name.
  HttpServer(HttpOptions options, Metrics& metrics);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the listening socket; throws Error naming host:port when it cannot (in use: sift
  // serve never shares a port).
  void bind();
  // The bound port (after bind(); --port 0 binds any free one).
  int port() const;
  // The connection cap in force: --max-connections, lowered to fit the open-file limit.
  int max_connections() const;
  // Serves until stop(), on --http-threads threads (this one among them); see above.
  void listen();
  // From any thread, any time (also before listen()); returns at once.
  void stop();
  // From now on the POST routes and /v1/models are served by `service`.
  void attach(Service& service);
  // From now on /health, /v1/models and the scoring routes answer 503 with `reason` (the
  // labeler failed its self-test): the server stays up so an orchestrator sees why. Once.
  void refuse(std::string reason);
  // One more route of the scoring API (api_routes.h), beside sift serve's. Before listen().
  void add_route(ApiRoute route);
  // Instead of the scoring API: every request goes to `routes` (routes.h). Before listen().
  void serve(Routes& routes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sift::serve
