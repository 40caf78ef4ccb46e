#include "review/query_string.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "core/error.h"
#include "serve/api_requests.h"
#include "tokenizer/utf8.h"

namespace sift::review {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoding of one name or value; `what` names it in errors.
std::string decode(std::string_view text, const std::string& what) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      const int high = i + 1 < text.size() ? hex_digit(text[i + 1]) : -1;
      const int low = i + 2 < text.size() ? hex_digit(text[i + 2]) : -1;
      if (high < 0 || low < 0) throw serve::BadRequest(what, fmt::format("{}: a '%' must be followed by two hex digits", what));
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else {
      out += c;
    }
  }
  try {
    utf8::validate(out);
  } catch (const Error& e) {
    throw serve::BadRequest(what, fmt::format("{}: {}", what, e.what()));
  }
  return out;
}

}  // namespace

std::string_view target_path(std::string_view target) { return target.substr(0, target.find_first_of("?#")); }

std::string_view target_query(std::string_view target) {
  const size_t question = target.find('?');
  if (question == std::string_view::npos) return {};
  std::string_view query = target.substr(question + 1);
  return query.substr(0, query.find('#'));
}

QueryParams::QueryParams(std::string_view text, const std::vector<std::string_view>& allowed) {
  while (!text.empty()) {
    const size_t amp = text.find('&');
    const std::string_view pair = text.substr(0, amp);
    text = amp == std::string_view::npos ? std::string_view() : text.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const std::string name = decode(pair.substr(0, eq), "a parameter name");
    bool known = false;
    for (std::string_view a : allowed) known = known || a == name;
    if (!known) {
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      throw serve::BadRequest(name, fmt::format("unknown parameter \"{}\" (this route takes: {})", name.substr(0, 64),
                                           list.empty() ? "none" : list));
    }
    std::string value = eq == std::string_view::npos ? std::string() : decode(pair.substr(eq + 1), name);
    if (!values_.emplace(name, std::move(value)).second)
      throw serve::BadRequest(name, fmt::format("parameter \"{}\" is given twice", name));
  }
}

std::optional<std::string> QueryParams::text(std::string_view name, size_t max_bytes) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  if (it->second.size() > max_bytes)
    throw serve::BadRequest(std::string(name), fmt::format("{}: longer than {} bytes", name, max_bytes));
  return it->second;
}

std::optional<int64_t> QueryParams::integer(std::string_view name, int64_t min, int64_t max) const {
  const std::optional<std::string> value = text(name, 32);
  if (!value) return std::nullopt;
  int64_t n = 0;
  const auto [end, error] = std::from_chars(value->data(), value->data() + value->size(), n);
  if (error != std::errc() || end != value->data() + value->size() || value->empty())
    throw serve::BadRequest(std::string(name), fmt::format("{}: \"{}\" is not an integer", name, *value));
  if (n < min || n > max)
    throw serve::BadRequest(std::string(name), fmt::format("{}: {} is not within {}..{}", name, n, min, max));
  return n;
}

std::optional<double> QueryParams::number(std::string_view name, double min, double max) const {
  const std::optional<std::string> value = text(name, 32);
  if (!value) return std::nullopt;
  double x = 0;
  const auto [end, error] = std::from_chars(value->data(), value->data() + value->size(), x);
  if (error != std::errc() || end != value->data() + value->size() || value->empty() || !std::isfinite(x))
    throw serve::BadRequest(std::string(name), fmt::format("{}: \"{}\" is not a finite number", name, *value));
  if (x < min || x > max)
    throw serve::BadRequest(std::string(name), fmt::format("{}: {} is not within {}..{}", name, x, min, max));
  return x;
}

}  // namespace sift::review
