#pragma once
// AllowedHosts: which names a request may call the server by, and which pages may send it one,
// while no API key guards the server (a key is the guard then: another site's page can neither
// send "Authorization" without a CORS preflight, which this server never grants, nor carry
// `sift review`'s SameSite=Strict cookie).
//
//   Host    (or an absolute-form target's authority) names this server: localhost, an IP
//           address (IPv6 in brackets), --host, or an --allowed-host name; the port is not
//           compared. A page of another site that reaches a server on this machine does so
//           under a name of its own DNS ("DNS rebinding"), which is none of these: 421.
//   Origin  (a browser sends it with every POST and every cross-site request) is a page of the
//           host the request names, or of a named host (localhost, 127.0.0.1, [::1], --host,
//           --allowed-host); an IP address alone does not pass, since a page served from any
//           address can send a request to this one: 403. "Origin: null" (a sandboxed page, a
//           file) is refused too.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sift::serve {

// A Host header's value, or a URI's authority: host [":" port], the host without brackets.
struct Authority {
  std::string_view host;
  std::string_view port;  // digits, maybe empty
};
// nullopt when `text` is not uri-host [":" port] (RFC 9112 section 3.2; no user info).
std::optional<Authority> parse_authority(std::string_view text);
// What follows "http://" or "https://" (either case) in `url`; nullopt for another scheme or none.
std::optional<std::string_view> after_http_scheme(std::string_view url);

class AllowedHosts {
 public:
  // `listen_host`: --host; `named`: the --allowed-host values. Throws OptionError naming one
  // that is not a host name (a port, a path or a space in it).
  AllowedHosts(std::string_view listen_host, const std::vector<std::string>& named);

  // Whether a request may name `host` (a Host header's value, port included or not).
  bool allows_host(std::string_view host) const;
  // Whether a request naming `host` may come from a page of `origin` (an Origin header's value).
  bool allows_origin(std::string_view origin, std::string_view host) const;

 private:
  bool is_named(std::string_view host) const;

  std::vector<std::string> named_;  // lower case, without brackets
};

}  // namespace sift::serve
