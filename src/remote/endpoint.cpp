#include "remote/endpoint.h"

#include <charconv>

#include "core/error.h"

namespace sift::remote {

Endpoint parse_endpoint(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  Endpoint endpoint;
  endpoint.url = std::string(url);
  if (url.starts_with("https://"))
    fail_option("--engine {}: https is not spoken here: engines are reached over plain HTTP (a private network or "
         "loopback; put a TLS proxy beside the client for anything else)", endpoint.url);
  if (!url.starts_with(kScheme)) fail_option("--engine {}: not an http:// URL (http://host:port)", endpoint.url);
  std::string_view rest = url.substr(kScheme.size());
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) endpoint.prefix = std::string(rest.substr(slash));
  if (authority.find('@') != std::string_view::npos)
    fail_option("--engine {}: user information in the URL is not supported", endpoint.url);
  std::string_view port;
  if (authority.starts_with("[")) {  // [v6]:port
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) fail_option("--engine {}: an IPv6 address without its closing ']'", endpoint.url);
    endpoint.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(":")) fail_option("--engine {}: expected ':port' after ']'", endpoint.url);
    if (!after.empty()) port = after.substr(1);
  } else {
    const size_t colon = authority.rfind(':');
    endpoint.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (endpoint.host.empty()) fail_option("--engine {}: no host", endpoint.url);
  if (port.empty()) {
    endpoint.port = "80";
  } else {
    int value = 0;
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (error != std::errc() || end != port.data() + port.size() || value < 1 || value > 65535)
      fail_option("--engine {}: port \"{}\" is not a number in [1, 65535]", endpoint.url, port);
    endpoint.port = std::string(port);
  }
  return endpoint;
}

}  // namespace sift::remote
