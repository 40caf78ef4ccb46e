#include "io/shard.h"

#include <charconv>

#include "core/error.h"
#include "io/content_hash.h"

namespace sift {

namespace {

bool parse_int(std::string_view text, int64_t& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

Shard Shard::parse(std::string_view text) {
  const size_t slash = text.find('/');
  Shard shard;
  if (slash == std::string_view::npos || !parse_int(text.substr(0, slash), shard.index) ||
      !parse_int(text.substr(slash + 1), shard.count) || shard.count < 1 || shard.index < 1 ||
      shard.index > shard.count)
    fail_option("--shard: expected K/N with 1 <= K <= N (e.g. 2/4), got \"{}\"", text);
  return shard;
}

bool Shard::contains(std::string_view member) const {
  return count == 1 || int64_t(stable_hash64(member) % uint64_t(count)) == index - 1;
}

std::string Shard::to_string() const { return std::to_string(index) + "/" + std::to_string(count); }

}  // namespace sift
