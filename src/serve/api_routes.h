#pragma once
// The scoring API of `sift serve` as one table: each route is {method, path, who may call it,
// whether it needs the model, what answers it}. The HTTP rules (http_request.h: check_head)
// find a request's route here and apply its entry (the API key, 503 while the model loads, a
// JSON body for POST); the session (http_session.h) calls its handler once the body is read. A
// route is one entry: scoring_api_routes() lists sift serve's, HttpServer::add_route adds one.
//
//   GET  /health                      200 ok, 503 loading or unhealthy (no key needed)
//   GET  /v1/models                   the served labeler (service.h)
//   GET  /metrics                     Prometheus text (metrics.h)
//   POST /v1/label, /v1/score         (service.h)
//   POST /v1/rerank, /v2/rerank, /rerank   one route under the paths Cohere's v1 and v2 SDKs,
//                                     Jina, TEI and llama-server call
#include <boost/beast/http/verb.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "serve/metrics.h"
#include "serve/service.h"

namespace sift::serve {

// What a handler gets: the service (null while the model loads), the metrics, why the labeler
// is refused (null: it is not), and for a POST route the body and the queued job's on_done
// (service.h: Started).
struct RouteCall {
  Service* service = nullptr;
  Metrics& metrics;
  const std::string* unhealthy = nullptr;
  std::string_view body;
  std::function<void()> on_done;
};

struct ApiRoute {
  enum class Method { Get /* answers HEAD too */, Post /* its body is JSON */ };
  Method method = Method::Get;
  std::string path;         // also its name in the metrics
  bool needs_key = true;    // false: answered without --api-key-file's key (/health)
  bool needs_model = true;  // 503 while the model loads or when its labeler failed its self-test
  // The answer at once (Started::reply), or the job it queued (Started::job); throws
  // BadRequest (its status) or anything else (500).
  std::function<Started(RouteCall&)> handler;
};

using RouteTable = std::vector<ApiRoute>;

// sift serve's routes (above).
const RouteTable& scoring_api_routes();

// The route of `method` + `target` (a query string or fragment ignored; GET routes answer
// HEAD), or null.
const ApiRoute* find_route(const RouteTable& routes, boost::beast::http::verb method, std::string_view target);
// The methods a path takes, as an Allow header lists them ("GET, HEAD", "POST"); empty for a
// path that is no route.
std::string allowed_methods(const RouteTable& routes, std::string_view target);
// The path part of a request target: up to its first '?' or '#'.
std::string_view path_of(std::string_view target);

}  // namespace sift::serve
