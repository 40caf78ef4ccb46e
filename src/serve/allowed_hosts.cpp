#include "serve/allowed_hosts.h"

#include <boost/asio/ip/address.hpp>
#include <boost/beast/core/string.hpp>

#include <algorithm>
#include <cctype>

#include "core/error.h"
#include "serve/reply.h"

namespace sift::serve {
namespace {

// reg-name (RFC 3986 section 3.2.2): unreserved, pct-encoded and sub-delims characters.
bool is_reg_name(std::string_view host) {
  return std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-._~%!$&'()*+,;=").find(c) != std::string_view::npos;
  });
}

bool is_ip_address(std::string_view host) {
  boost::system::error_code error;
  boost::asio::ip::make_address(std::string(host), error);
  return !error;
}

bool same_text_ignoring_case(std::string_view a, std::string_view b) {
  return boost::beast::iequals(boost::beast::string_view(a.data(), a.size()), boost::beast::string_view(b.data(), b.size()));
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::optional<std::string_view> after_http_scheme(std::string_view url) {
  const size_t separator = url.find("://");
  if (separator == std::string_view::npos) return std::nullopt;
  const std::string_view scheme = url.substr(0, separator);
  if (!same_text_ignoring_case(scheme, "http") && !same_text_ignoring_case(scheme, "https")) return std::nullopt;
  return url.substr(separator + 3);
}

std::optional<Authority> parse_authority(std::string_view text) {
  Authority authority;
  std::string_view rest;
  if (text.starts_with('[')) {  // an IP literal: [IPv6]
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    authority.host = text.substr(1, close - 1);
    if (authority.host.find(':') == std::string_view::npos || !is_ip_address(authority.host)) return std::nullopt;
    rest = text.substr(close + 1);
  } else {
    const size_t colon = text.find(':');
    authority.host = text.substr(0, colon);
    if (!is_reg_name(authority.host)) return std::nullopt;
    rest = colon == std::string_view::npos ? std::string_view() : text.substr(colon);
  }
  if (!rest.empty()) {
    if (rest.front() != ':') return std::nullopt;
    authority.port = rest.substr(1);
    if (!std::all_of(authority.port.begin(), authority.port.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
  }
  return authority;
}

AllowedHosts::AllowedHosts(std::string_view listen_host, const std::vector<std::string>& named)
    : named_{"localhost", "127.0.0.1", "::1"} {
  const auto add = [this](std::string_view host, std::string_view flag) {
    const std::optional<Authority> authority = parse_authority(host);
    if (host.empty() || !authority || !authority->port.empty() || authority->host.empty())
      fail_option("{} \"{}\": not a host name (a name or an address, without a port)", flag, echoed(host));
    named_.push_back(lower(authority->host));
  };
  // --host is an address (an IPv6 one without brackets) or a name.
  if (is_ip_address(listen_host)) named_.push_back(lower(listen_host));
  else add(listen_host, "--host");
  for (const std::string& host : named) add(host, "--allowed-host");
}

bool AllowedHosts::is_named(std::string_view host) const {
  return std::any_of(named_.begin(), named_.end(), [&](const std::string& name) { return same_text_ignoring_case(name, host); });
}

bool AllowedHosts::allows_host(std::string_view host) const {
  const std::optional<Authority> authority = parse_authority(host);
  return authority && (is_ip_address(authority->host) || is_named(authority->host));
}

bool AllowedHosts::allows_origin(std::string_view origin, std::string_view host) const {
  // serialized-origin = scheme "://" host [":" port] (RFC 6454 section 6.2), nothing after it;
  // "null" and other schemes are not a page of this server.
  const std::optional<std::string_view> authority = after_http_scheme(origin);
  const std::optional<Authority> from = authority ? parse_authority(*authority) : std::nullopt;
  if (!from || from->host.empty()) return false;
  const std::optional<Authority> to = parse_authority(host);
  return (to && same_text_ignoring_case(from->host, to->host)) || is_named(from->host);
}

}  // namespace sift::serve
