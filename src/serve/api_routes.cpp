#include "serve/api_routes.h"

namespace sift::serve {
namespace {

namespace http = boost::beast::http;

Started answered(Reply reply) {
  Started started;
  started.reply = std::move(reply);
  return started;
}

Started health(RouteCall& call) {
  if (call.unhealthy) return answered(Reply{503, {{"status", "unhealthy"}, {"reason", *call.unhealthy}}, {}, {}});
  return answered(call.service ? Reply{200, {{"status", "ok"}}, {}, {}} : Reply{503, {{"status", "loading"}}, {}, {}});
}

Started metrics(RouteCall& call) {
  Reply reply;
  reply.text = call.metrics.render(call.service ? call.service->cache_stats() : PrefixCacheStats{});
  return answered(std::move(reply));
}

// needs_model routes are only called with a service (the session answers 503 before).
Started models(RouteCall& call) { return answered(call.service->models()); }
Started label(RouteCall& call) { return call.service->label(call.body, std::move(call.on_done)); }
Started score(RouteCall& call) { return call.service->score(call.body, std::move(call.on_done)); }
Started rerank(RouteCall& call) { return call.service->rerank(call.body, std::move(call.on_done)); }

RouteTable make_scoring_api_routes() {
  using enum ApiRoute::Method;
  return {
      {Get, "/health", /*needs_key=*/false, /*needs_model=*/false, health},
      {Get, "/v1/models", true, true, models},
      {Get, "/metrics", true, false, metrics},
      {Post, "/v1/label", true, true, label},
      {Post, "/v1/score", true, true, score},
      {Post, "/v1/rerank", true, true, rerank},
      {Post, "/v2/rerank", true, true, rerank},
      {Post, "/rerank", true, true, rerank},
  };
}

bool takes(ApiRoute::Method route_method, http::verb method) {
  if (route_method == ApiRoute::Method::Post) return method == http::verb::post;
  return method == http::verb::get || method == http::verb::head;
}

}  // namespace

const RouteTable& scoring_api_routes() {
  static const RouteTable routes = make_scoring_api_routes();
  return routes;
}

std::string_view path_of(std::string_view target) { return target.substr(0, target.find_first_of("?#")); }

const ApiRoute* find_route(const RouteTable& routes, http::verb method, std::string_view target) {
  const std::string_view path = path_of(target);
  for (const ApiRoute& route : routes)
    if (route.path == path && takes(route.method, method)) return &route;
  return nullptr;
}

std::string allowed_methods(const RouteTable& routes, std::string_view target) {
  const bool get = find_route(routes, http::verb::get, target) != nullptr;
  const bool post = find_route(routes, http::verb::post, target) != nullptr;
  if (get && post) return "GET, HEAD, POST";
  return get ? "GET, HEAD" : post ? "POST" : "";
}

}  // namespace sift::serve
