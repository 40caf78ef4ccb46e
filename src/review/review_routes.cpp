#include "review/review_routes.h"

#include <openssl/crypto.h>

#include <fmt/format.h>

#include <chrono>

#include "review/assets.h"
#include "review/query_string.h"
#include "serve/api_requests.h"
#include "serve/http_request.h"
#include "store/sql_database.h"

namespace sift::review {

namespace {

namespace http = boost::beast::http;
using serve::BadRequest;
using serve::Reply;

constexpr std::string_view kCookieName = "sift_review";
constexpr std::string_view kCsrfHeader = "X-CSRF-Token";
// Retry-After of a 503 for a store another program keeps locked: about one more lock wait.
constexpr int kRetryBusySeconds = int(std::chrono::duration_cast<std::chrono::seconds>(ReviewApi::kLockWait).count());

enum class Kind { Page, Login, Api, Asset };

struct RouteEntry {
  http::verb method;
  std::string_view path;
  Kind kind;
  std::string_view page = {};  // Kind::Page: its asset
};

// Every route; /assets/<file> is matched by prefix.
constexpr RouteEntry kRoutes[] = {
    {http::verb::get, "/", Kind::Page, "members.html"},
    {http::verb::get, "/member", Kind::Page, "member.html"},
    {http::verb::get, "/calibration", Kind::Page, "calibration.html"},
    {http::verb::get, "/login", Kind::Login},
    {http::verb::post, "/login", Kind::Login},
    {http::verb::get, "/api/session", Kind::Api},
    {http::verb::get, "/api/members", Kind::Api},
    {http::verb::get, "/api/member", Kind::Api},
    {http::verb::get, "/api/flips", Kind::Api},
    {http::verb::get, "/api/queue", Kind::Api},
    {http::verb::get, "/api/calibration", Kind::Api},
    {http::verb::post, "/api/review", Kind::Api},
};
constexpr std::string_view kAssetPrefix = "/assets/";

std::string_view view(boost::beast::string_view s) { return {s.data(), s.size()}; }

// The route of method + path; nullopt with `allow` set when the path exists for other methods.
std::optional<RouteEntry> find_route(http::verb method, std::string_view path, std::string& allow) {
  if (method == http::verb::head) method = http::verb::get;
  if (path.starts_with(kAssetPrefix)) {
    if (method == http::verb::get) return RouteEntry{method, path, Kind::Asset};
    allow = "GET, HEAD";
    return std::nullopt;
  }
  for (const RouteEntry& route : kRoutes) {
    if (route.path != path) continue;
    if (route.method == method) return route;
    allow += (allow.empty() ? "" : ", ") + std::string(route.method == http::verb::get ? "GET, HEAD" : "POST");
  }
  return std::nullopt;
}

// Equal, in a time that does not depend on where they differ.
bool same_secret(std::string_view given, const std::string& secret) {
  return given.size() == secret.size() && CRYPTO_memcmp(given.data(), secret.data(), secret.size()) == 0;
}

// The value of cookie `name` in a Cookie header ("a=1; b=2"), if present.
std::optional<std::string_view> cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const size_t semicolon = header.find(';');
    std::string_view pair = header.substr(0, semicolon);
    header = semicolon == std::string_view::npos ? std::string_view() : header.substr(semicolon + 1);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) return pair.substr(eq + 1);
  }
  return std::nullopt;
}

// What every answer says: no script but our own files, no framing, no sniffing, no caching.
Reply secured(Reply reply) {
  reply.headers.emplace_back("Content-Security-Policy",
                             "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                             "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
                             "frame-ancestors 'none'");
  reply.headers.emplace_back("X-Content-Type-Options", "nosniff");
  reply.headers.emplace_back("X-Frame-Options", "DENY");
  reply.headers.emplace_back("Referrer-Policy", "no-referrer");
  reply.headers.emplace_back("Cache-Control", "no-store");
  return reply;
}

Reply asset_reply(std::string_view name, int status = 200) {
  const std::optional<Asset> asset = find_asset(name);
  if (!asset) return serve::error_reply(404, fmt::format("no file {}", name.substr(0, 100)));
  Reply reply;
  reply.status = status;
  reply.text = std::string(asset->bytes);
  reply.content_type = std::string(asset->content_type);
  return reply;
}

Reply json_reply(nlohmann::json body) { return Reply{200, std::move(body), {}, {}, {}}; }

// 429 for a client blocked after failed logins, `wait` seconds more.
Reply throttled_reply(std::optional<int> wait) {
  const int seconds = wait.value_or(1);
  return serve::retry_reply(
      429, fmt::format("too many wrong keys: no key is accepted from here for {} s; try again then", seconds), seconds);
}

}  // namespace

ReviewRoutes::ReviewRoutes(ReviewApi& api, std::optional<serve::ApiKey> api_key)
    : api_(api), api_key_(std::move(api_key)), csrf_token_(random_token()) {}

ReviewRoutes::Access ReviewRoutes::access(const Head& head, const std::string& client) const {
  if (!api_key_) return Access::granted;
  for (auto [field, end] = head.equal_range(http::field::cookie); field != end; ++field)
    if (const auto value = cookie_value(view(field->value()), kCookieName); value && sessions_.valid(*value))
      return Access::granted;
  const auto authorization = head.find(http::field::authorization);
  if (authorization == head.end()) return Access::denied;
  if (throttle_.blocked_for(client)) return Access::throttled;
  if (!api_key_->accepts(view(authorization->value()))) {
    throttle_.failed(client);
    return Access::denied;
  }
  throttle_.succeeded(client);
  return Access::granted;
}

std::optional<Reply> ReviewRoutes::refusal(const Head& head, std::string_view client_address) const {
  const std::string client(client_address);
  const std::string_view path = target_path(view(head.target()));
  std::string allow;
  const std::optional<RouteEntry> route = find_route(head.method(), path, allow);
  if (route && route->kind == Kind::Login) return std::nullopt;
  const Access granted = access(head, client);
  if (granted == Access::throttled) return secured(throttled_reply(throttle_.blocked_for(client)));
  if (granted == Access::denied) {
    // A page shows the login form; the API and files say 401 in JSON.
    if (route && route->kind == Kind::Page) return secured(asset_reply("login.html", 401));
    Reply reply = serve::error_reply(401, "log in at /login, or send \"Authorization: Bearer <key>\"");
    reply.headers.emplace_back("WWW-Authenticate", "Bearer");
    return secured(std::move(reply));
  }
  if (!route && !allow.empty()) {
    Reply reply = serve::error_reply(405, fmt::format("{} takes {}", path.substr(0, 100), allow));
    reply.headers.emplace_back("Allow", allow);
    return secured(std::move(reply));
  }
  if (!route) return secured(serve::error_reply(404, fmt::format("no page {}", path.substr(0, 100))));
  if (head.method() == http::verb::post && route->kind == Kind::Api) {
    const auto token = head.find(boost::beast::string_view(kCsrfHeader.data(), kCsrfHeader.size()));
    if (token == head.end() || !same_secret(view(token->value()), csrf_token_))
      return secured(serve::error_reply(403, "missing or wrong X-CSRF-Token (GET /api/session gives it)"));
    if (std::optional<Reply> type = serve::json_body_refusal(head)) return secured(std::move(*type));
  }
  return std::nullopt;
}

Reply ReviewRoutes::answer(const Request& request, std::string_view client) {
  const std::string_view target = view(request.target());
  const std::string_view path = target_path(target);
  std::string allow;
  const std::optional<RouteEntry> route = find_route(request.method(), path, allow);
  if (!route) return secured(serve::error_reply(404, "no route"));  // refused with the head already
  try {
    switch (route->kind) {
      case Kind::Page: return secured(asset_reply(route->page));
      case Kind::Asset: return secured(asset_reply(path.substr(kAssetPrefix.size())));
      case Kind::Login: return secured(login(request, std::string(client)));
      case Kind::Api: return secured(api(request, path));
    }
  } catch (const BadRequest& e) {
    return secured(serve::error_reply(e.status(), e.what(), e.field()));
  } catch (const store::StoreBusy& e) {
    return secured(serve::retry_reply(503, fmt::format("the store is busy: {}; retry", e.what()), kRetryBusySeconds));
  }
  return secured(serve::error_reply(404, "no route"));
}

Reply ReviewRoutes::login(const Request& request, const std::string& client) {
  if (!api_key_ || request.method() != http::verb::post) {
    if (api_key_) return asset_reply("login.html");
    Reply reply{303, nullptr, {{"Location", "/"}}, "no key needed: see /", "text/plain; charset=utf-8"};
    return reply;
  }
  if (const std::optional<int> wait = throttle_.blocked_for(client)) return throttled_reply(wait);
  const QueryParams form(request.body(), {"key"});
  const std::string key = form.text("key", 4096).value_or("");
  if (!api_key_->accepts("Bearer " + key)) {
    throttle_.failed(client);
    return asset_reply("login.html", 401);
  }
  throttle_.succeeded(client);
  Reply reply{303, nullptr, {}, "logged in: see /", "text/plain; charset=utf-8"};
  reply.headers.emplace_back("Location", "/");
  reply.headers.emplace_back("Set-Cookie",
                             fmt::format("{}={}; Path=/; HttpOnly; SameSite=Strict", kCookieName, sessions_.issue()));
  return reply;
}

Reply ReviewRoutes::api(const Request& request, std::string_view path) {
  const std::string_view query = target_query(view(request.target()));
  if (path == "/api/session") {
    QueryParams(query, {});
    nlohmann::json session = api_.session();
    session["csrf_token"] = csrf_token_;
    return json_reply(std::move(session));
  }
  if (path == "/api/members") return json_reply(api_.members(QueryParams(query, ReviewApi::kMembersParams)));
  if (path == "/api/member") return json_reply(api_.member(QueryParams(query, ReviewApi::kMemberParams)));
  if (path == "/api/flips") return json_reply(api_.flips(QueryParams(query, ReviewApi::kFlipsParams)));
  if (path == "/api/queue") return json_reply(api_.queue(QueryParams(query, ReviewApi::kQueueParams)));
  if (path == "/api/calibration") {
    QueryParams(query, {});
    return json_reply(api_.calibration());
  }
  if (path == "/api/review") return api_.review(request.body());
  return serve::error_reply(404, "no route");
}

}  // namespace sift::review
