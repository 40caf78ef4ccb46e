#include "serve/http_server.h"

#include <fmt/format.h>

#include <chrono>

#include "core/error.h"
#include "serve/api_requests.h"
#include "serve/peer_probe.h"

namespace sift::serve {
namespace {

constexpr const char* kJson = "application/json";
constexpr const char* kKnownRoutes[] = {"/health", "/v1/models", "/metrics", "/v1/label", "/v1/score", "/v1/rerank"};

// The route label of a path for metrics: a known route, or "other" (so random paths cannot
// grow the metrics without bound).
std::string route_label(const std::string& path) {
  for (const char* route : kKnownRoutes)
    if (path == route) return route;
  return "other";
}

void write(httplib::Response& response, const Reply& reply) {
  response.status = reply.status;
  for (const auto& [name, value] : reply.headers) response.set_header(name, value);
  response.set_content(reply.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), kJson);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

HttpServer::HttpServer(HttpOptions options, Metrics& metrics) : options_(std::move(options)), metrics_(metrics) {
  const int threads = options_.http_threads;
  server_.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  server_.set_payload_max_length(static_cast<size_t>(options_.max_body_bytes));
  server_.set_keep_alive_timeout(5);
  server_.set_keep_alive_max_count(1 << 20);  // a client may keep its connection (no close/reopen races)
  server_.set_tcp_nodelay(true);              // a response is one small write: no Nagle delay
  add_routes();
}

void HttpServer::bind() {
  const int bound = options_.port == 0 ? server_.bind_to_any_port(options_.host)
                                       : (server_.bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (bound <= 0)
    fail("cannot listen on {}:{} (in use, or not an address of this machine)", options_.host, options_.port);
  port_ = bound;
}

void HttpServer::listen() { server_.listen_after_bind(); }

void HttpServer::stop() { server_.stop(); }

void HttpServer::respond(const httplib::Request& request, httplib::Response& response, const char* route,
                         Reply (*handle)(Service&, const httplib::Request&, const ClientGone&)) {
  const auto start = std::chrono::steady_clock::now();
  Reply reply;
  Service* service = service_.load();
  if (!service) {
    reply = error_reply(503, "the model is loading");
    reply.headers.emplace_back("Retry-After", "1");
  } else {
    std::optional<PeerProbe> probe;
    const ClientGone gone = [&] {
      if (!probe) probe.emplace(request.local_port, request.remote_addr, request.remote_port);
      return probe->closed();
    };
    try {
      reply = handle(*service, request, gone);
    } catch (const BadRequest& e) {
      reply = error_reply(400, e.what(), e.field());
    } catch (const std::exception& e) {
      reply = error_reply(500, e.what());
    }
  }
  write(response, reply);
  metrics_.count_request(route, reply.status, seconds_since(start));
}

void HttpServer::add_routes() {
  server_.set_pre_routing_handler([this](const httplib::Request& request, httplib::Response& response) {
    if (!options_.api_key || request.path == "/health") return httplib::Server::HandlerResponse::Unhandled;
    if (options_.api_key->accepts(request.get_header_value("Authorization")))
      return httplib::Server::HandlerResponse::Unhandled;
    Reply reply = error_reply(401, "missing or wrong \"Authorization: Bearer <key>\"");
    reply.headers.emplace_back("WWW-Authenticate", "Bearer");
    write(response, reply);
    metrics_.count_request(route_label(request.path), 401, 0);
    return httplib::Server::HandlerResponse::Handled;
  });
  // Errors httplib answers itself (no route: 404; body too large: 413; a bad request line:
  // 400) get a JSON body like every other error.
  server_.set_error_handler(httplib::Server::HandlerWithResponse([this](const httplib::Request& request,
                                                                        httplib::Response& response) {
    if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;  // ours, already JSON
    Reply reply;
    if (response.status == 404)
      reply = error_reply(404, fmt::format("no route for {} {}", request.method.substr(0, 16), request.path.substr(0, 100)));
    else if (response.status == 413)
      reply = error_reply(413, fmt::format("the body is larger than --max-body-mb ({} bytes)", options_.max_body_bytes));
    else
      reply = error_reply(response.status, fmt::format("the request could not be read (HTTP {})", response.status));
    write(response, reply);
    metrics_.count_request(route_label(request.path), reply.status, 0);
    return httplib::Server::HandlerResponse::Handled;
  }));

  server_.Get("/health", [this](const httplib::Request&, httplib::Response& response) {
    const bool ready = service_.load() != nullptr;
    write(response, {ready ? 200 : 503, {{"status", ready ? "ok" : "loading"}}, {}});
  });
  server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    Service* service = service_.load();
    response.set_content(metrics_.render(service ? service->cache_stats() : QueryKvCacheStats{}),
                         "text/plain; version=0.0.4");
    metrics_.count_request("/metrics", 200, 0);
  });
  server_.Get("/v1/models", [this](const httplib::Request& request, httplib::Response& response) {
    respond(request, response, "/v1/models",
            [](Service& s, const httplib::Request&, const ClientGone&) { return s.models(); });
  });
  server_.Post("/v1/label", [this](const httplib::Request& request, httplib::Response& response) {
    respond(request, response, "/v1/label",
            [](Service& s, const httplib::Request& r, const ClientGone& gone) { return s.label(r.body, gone); });
  });
  server_.Post("/v1/score", [this](const httplib::Request& request, httplib::Response& response) {
    respond(request, response, "/v1/score",
            [](Service& s, const httplib::Request& r, const ClientGone& gone) { return s.score(r.body, gone); });
  });
  server_.Post("/v1/rerank", [this](const httplib::Request& request, httplib::Response& response) {
    respond(request, response, "/v1/rerank",
            [](Service& s, const httplib::Request& r, const ClientGone& gone) { return s.rerank(r.body, gone); });
  });
}

}  // namespace sift::serve
