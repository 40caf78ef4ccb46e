#pragma once
// Reply: what `sift serve` answers a request, apart from HTTP's framing: a status, a JSON body
// (or, for /metrics, text; for an application's pages, text of its own content type) and extra
// headers (Retry-After, WWW-Authenticate).
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sift::serve {

struct Reply {
  int status = 200;
  nlohmann::json body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string text;  // a text/plain body instead of JSON when not empty (/metrics)
  std::string content_type = {};  // of `text`, when not Prometheus' text/plain (routes.h)
};

// {"object": "error", "message", "type", "code", "param", "error": {the same}} with the
// status: "param" names the field at fault (null when none); the top level is what SGLang's
// clients read, "error" what OpenAI's read.
// A message is at most kMaxMessageBytes (cut as echoed() cuts), whatever a caller put in it.
Reply error_reply(int status, std::string_view message, std::string_view field = "");

// 404 in the same envelope, as OpenAI answers a model it does not serve: type
// "invalid_request_error", code "model_not_found", param "model"; the message names both the
// model asked for (echoed) and the names served.
Reply model_not_found_reply(std::string_view asked, const std::vector<std::string>& served);

// error_reply with "Retry-After: <seconds>" (429, 503).
Reply retry_reply(int status, std::string_view message, int retry_after_seconds = 1);

// What a client sent, as an error message quotes it: whole when at most kMaxEchoedBytes, else
// its first kMaxEchoedBytes (whole UTF-8 characters) and "…(N bytes)". Every message that
// repeats a client's value (a path, a header, a field) goes through it, so no request can make
// an error answer large.
inline constexpr size_t kMaxEchoedBytes = 64;
inline constexpr size_t kMaxMessageBytes = 1024;
std::string echoed(std::string_view value, size_t max_bytes = kMaxEchoedBytes);

}  // namespace sift::serve
