#pragma once
// The HTTP side's settings, each set by a `sift serve` flag (named beside it). Every limit
// here bounds what one client, or all of them, can make the server hold; README "Limits and
// failure behaviour" says what a client sees at each.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "serve/api_key.h"

namespace sift::serve {

using Seconds = std::chrono::duration<double>;

struct HttpOptions {
  std::string host = "127.0.0.1";             // --host
  int port = 8000;                            // --port (0: any free port; HttpServer::port() says which)
  int io_threads = 4;                         // --http-threads: threads that accept, read and write
  int max_connections = 10'000;               // --max-connections: open at once, in all
  int max_connections_per_address = 256;      // --max-connections-per-address: from one client address
  Seconds keep_alive{5};                      // --keep-alive-seconds: idle before a request's first byte
  Seconds head_timeout{10};                   // --head-timeout-seconds: first byte to the end of the head
  Seconds body_timeout{60};                   // --body-timeout-seconds: the whole body; also sending a response
  Seconds shutdown_grace{30};                 // --shutdown-grace-seconds: SIGTERM to exit, at most
  int64_t max_body_bytes = int64_t{8} << 20;  // --max-body-mb
  // --max-buffered-mb: request bodies held at once by every connection together (body_budget.h)
  int64_t max_buffered_body_bytes = int64_t{256} << 20;
  // --api-key-file: every route but /health needs it (an application's routes, routes.h, check
  // it themselves); while none is set, Host and Origin are checked instead (allowed_hosts.h).
  std::optional<ApiKey> api_key;
  std::vector<std::string> allowed_hosts;  // --allowed-host: names besides localhost, IP addresses and --host
};

// A request head (request line and header fields) larger than this is refused (431).
inline constexpr uint32_t kMaxHeadBytes = 16 * 1024;

}  // namespace sift::serve
