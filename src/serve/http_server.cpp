#include "serve/http_server.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "serve/allowed_hosts.h"
#include "serve/body_budget.h"
#include "serve/connections.h"
#include "serve/http_session.h"
#include "serve/listener.h"

namespace sift::serve {
namespace {

namespace net = boost::asio;

// File descriptors kept for everything but client connections: the model's files, the
// listener, the spare one (listener.h), logs.
constexpr int64_t kReservedFds = 64;
// After the grace period: how long closed connections get to finish their last handlers.
constexpr auto kLastHandlers = std::chrono::milliseconds(100);
// Threads that run an application's answers (routes.h), off the I/O threads.
constexpr int kAppWorkers = 4;

// --max-connections, lowered to what the open-file limit (raised to its hard limit) allows.
int connection_cap(int asked) {
  const int64_t fds = raise_open_file_limit();
  if (fds < 0) return asked;
  return static_cast<int>(std::clamp<int64_t>(fds - kReservedFds, 1, asked));
}

}  // namespace

struct HttpServer::Impl {
  Impl(HttpOptions http, Metrics& metrics_)
      : options(std::move(http)),
        metrics(metrics_),
        connections(connection_cap(options.max_connections), options.max_connections_per_address),
        hosts(options.host, options.allowed_hosts),
        body_budget(options.max_buffered_body_bytes),
        io(options.io_threads),
        strand(net::make_strand(io)),
        grace(strand),
        app_workers(kAppWorkers),
        api(scoring_api_routes()),
        context{options, service, metrics, connections, stopping, hosts, body_budget, &api, nullptr, &app_workers, &unhealthy},
        listener(std::make_shared<Listener>(io, context)) {}

  // On the strand: the stop once every connection is gone, or at the end of the grace period.
  void stop_when_closed() {
    if (connections.empty()) grace.cancel();
  }

  HttpOptions options;
  Metrics& metrics;
  std::atomic<Service*> service{nullptr};
  std::atomic<bool> stopping{false};
  Connections connections;  // outlives io: sessions destroyed with io's handlers release themselves here
  AllowedHosts hosts;
  BodyBudget body_budget;   // outlives io, as connections
  net::io_context io;
  net::strand<net::io_context::executor_type> strand;
  net::steady_timer grace;
  net::thread_pool app_workers;  // joined before io is destroyed: its tasks hold sessions
  Unhealthy unhealthy;
  RouteTable api;  // the scoring API's routes (api_routes.h)
  SessionContext context;
  std::shared_ptr<Listener> listener;
};

HttpServer::HttpServer(HttpOptions options, Metrics& metrics) : impl_(std::make_unique<Impl>(std::move(options), metrics)) {}

HttpServer::~HttpServer() = default;

void HttpServer::bind() { impl_->listener->bind(impl_->options.host, impl_->options.port); }

int HttpServer::port() const { return impl_->listener->port(); }

int HttpServer::max_connections() const { return impl_->connections.max_total(); }

void HttpServer::attach(Service& service) { impl_->service.store(&service); }

void HttpServer::refuse(std::string reason) {
  if (impl_->unhealthy.set.load()) return;
  impl_->unhealthy.reason = std::move(reason);
  impl_->unhealthy.set.store(true, std::memory_order_release);
}

void HttpServer::add_route(ApiRoute route) { impl_->api.push_back(std::move(route)); }

void HttpServer::serve(Routes& routes) { impl_->context.routes = &routes; }

void HttpServer::listen() {
  Impl& s = *impl_;
  s.connections.set_on_empty([&s] {
    if (s.stopping) net::post(s.strand, [&s] { s.stop_when_closed(); });
  });
  s.listener->start();
  std::vector<std::thread> threads;
  for (int i = 1; i < s.options.io_threads; ++i) threads.emplace_back([&s] { s.io.run(); });
  s.io.run();
  for (std::thread& thread : threads) thread.join();
  s.app_workers.join();  // answers still running post to the stopped io, which drops them
  s.connections.set_on_empty(nullptr);  // sessions left in io's queue die with it, after this
}

void HttpServer::stop() {
  Impl& s = *impl_;
  if (s.stopping.exchange(true)) return;
  net::post(s.strand, [&s] {
    s.listener->close();
    for (const auto& connection : s.connections.all()) connection->shut_down();
    s.grace.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(s.options.shutdown_grace));
    s.grace.async_wait([&s](const boost::system::error_code& error) {
      if (error) return;  // every connection closed in time
      for (const auto& connection : s.connections.all()) connection->force_close();
      s.grace.expires_after(kLastHandlers);
      s.grace.async_wait([&s](const boost::system::error_code&) { s.io.stop(); });
    });
    s.stop_when_closed();
  });
}

}  // namespace sift::serve
