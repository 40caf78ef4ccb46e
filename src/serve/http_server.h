#pragma once
// HttpServer: the routes of `sift serve` on cpp-httplib.
//
//   GET  /health      200 {"status": "ok"} once the model is loaded, 503 before (no key needed)
//   GET  /v1/models   the served labeler
//   GET  /metrics     Prometheus text (metrics.h)
//   POST /v1/label, /v1/score, /v1/rerank   (service.h)
//
// Every error is JSON (service.h error_reply: "message", "type", "code", "param" = the field):
// 400 malformed,
// 401 missing or wrong "Authorization: Bearer <key>" (with --api-key-file; every route but
// /health), 404 unknown route, 413 body over --max-body-mb, 429 queue full, 503 loading,
// 504 deadline. The listener starts before the model loads, so /health can say "loading".
#include <httplib.h>

#include <atomic>
#include <optional>
#include <string>

#include "serve/api_key.h"
#include "serve/service.h"

namespace sift::serve {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8000;               // 0: any free port (port() says which, once bound)
  int http_threads = 64;         // connections handled at once (each waits for its job)
  int64_t max_body_bytes = 0;
  std::optional<ApiKey> api_key;
};

class HttpServer {
 public:
  HttpServer(HttpOptions options, Metrics& metrics);
  // Binds the listening socket (options.port, or any free port when it is 0); throws Error
  // naming host:port when it cannot. Clients may connect from here on; they are answered
  // once listen() runs.
  void bind();
  int port() const { return port_; }  // the bound port, after bind()
  // Serves until stop(); in-flight requests are finished and answered first.
  void listen();
  void stop();
  bool running() const { return server_.is_running(); }
  // From now on the POST routes and /v1/models are served by `service`.
  void attach(Service& service) { service_.store(&service); }

 private:
  void add_routes();
  void respond(const httplib::Request& request, httplib::Response& response, const char* route,
               Reply (*handle)(Service&, const httplib::Request&, const ClientGone&));

  HttpOptions options_;
  httplib::Server server_;
  int port_ = 0;
  std::atomic<Service*> service_{nullptr};
  Metrics& metrics_;
};

}  // namespace sift::serve
