#include "serve/reply.h"

#include <fmt/format.h>

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
    case 415: return "UnsupportedMediaTypeError";
    case 421: return "MisdirectedRequestError";
    case 429: return "RateLimitError";
    case 431: return "RequestTooLargeError";
    case 499: return "ClientClosedRequest";
    case 501: return "NotImplementedError";
    case 503: return "ServiceUnavailableError";
    case 504: return "TimeoutError";
    default: return status >= 500 ? "InternalServerError" : "BadRequestError";
  }
}

using nlohmann::json;

Reply envelope(int status, std::string_view message, std::string_view type, json code, std::string_view field) {
  const json param = field.empty() ? json(nullptr) : json(std::string(field));
  json error = {{"message", std::string(message)}, {"type", std::string(type)}, {"code", std::move(code)}, {"param", param}};
  json body = error;  // SGLang's clients read the top level, OpenAI's "error"
  body["object"] = "error";
  body["error"] = std::move(error);
  return {status, std::move(body), {}, {}};
}

}  // namespace

std::string echoed(std::string_view value, size_t max_bytes) {
  if (value.size() <= max_bytes) return std::string(value);
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return fmt::format("{}\u2026({} bytes)", value.substr(0, cut), value.size());
}

Reply error_reply(int status, std::string_view message, std::string_view field) {
  return envelope(status, echoed(message, kMaxMessageBytes), error_type(status), status, echoed(field, kMaxMessageBytes));
}

Reply model_not_found_reply(std::string_view asked, const std::vector<std::string>& served) {
  std::string names;
  for (const std::string& name : served) names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", name);
  const std::string message = fmt::format("the model \"{}\" is not served here; this server serves {} (GET "
                                          "/v1/models), or leave \"model\" out", echoed(asked), names);
  return envelope(404, message, "invalid_request_error", "model_not_found", "model");
}

Reply retry_reply(int status, std::string_view message, int retry_after_seconds) {
  Reply reply = error_reply(status, message);
  reply.headers.emplace_back("Retry-After", std::to_string(retry_after_seconds));
  return reply;
}

}  // namespace sift::serve
