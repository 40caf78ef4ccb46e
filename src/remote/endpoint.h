#pragma once
// An engine's address as a user gives it to --engine: http://host:port[/prefix], plain HTTP
// (a scoring server on a private network or loopback; TLS belongs to a proxy in front).
#include <string>
#include <string_view>

namespace sift::remote {

struct Endpoint {
  std::string url;     // as given, without a trailing '/': how messages name it
  std::string host;    // a name, an IPv4 address, or an IPv6 address without its brackets
  std::string port;    // "80" when the URL names none
  std::string prefix;  // the path before /v1/...: "" or "/something"

  // The Host header's value (RFC 9112 §3.2): host:port, an IPv6 address in its brackets.
  std::string authority() const {
    return (host.find(':') == std::string::npos ? host : "[" + host + "]") + ":" + port;
  }
};

// Throws OptionError naming the URL and what is wrong with it.
Endpoint parse_endpoint(std::string_view url);

}  // namespace sift::remote
