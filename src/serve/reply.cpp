#include "serve/reply.h"

#include <string>

namespace sift::serve {
namespace {

// The error type names of OpenAI-style servers (SGLang answers /v1/score errors so).
std::string_view error_type(int status) {
  switch (status) {
    case 400: return "BadRequestError";
    case 401: return "AuthenticationError";
    case 403: return "PermissionDeniedError";
    case 404: return "NotFoundError";
    case 405: return "MethodNotAllowedError";
    case 408: return "RequestTimeoutError";
    case 413: return "RequestTooLargeError";
    case 429: return "RateLimitError";
    case 431: return "RequestTooLargeError";
    case 499: return "ClientClosedRequest";
    case 501: return "NotImplementedError";
    case 503: return "ServiceUnavailableError";
    case 504: return "TimeoutError";
    default: return status >= 500 ? "InternalServerError" : "BadRequestError";
  }
}

}  // namespace

Reply error_reply(int status, std::string_view message, std::string_view field) {
  using nlohmann::json;
  const json param = field.empty() ? json(nullptr) : json(std::string(field));
  json error = {{"message", std::string(message)}, {"type", error_type(status)}, {"code", status}, {"param", param}};
  json body = error;  // SGLang's clients read the top level, OpenAI's "error"
  body["object"] = "error";
  body["error"] = std::move(error);
  return {status, std::move(body), {}, {}};
}

Reply retry_reply(int status, std::string_view message, int retry_after_seconds) {
  Reply reply = error_reply(status, message);
  reply.headers.emplace_back("Retry-After", std::to_string(retry_after_seconds));
  return reply;
}

}  // namespace sift::serve
