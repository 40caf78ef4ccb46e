#pragma once
// --shard K/N: N machines split the members between them, machine K taking those with
// stable_hash64(member) % N == K - 1. Every machine reads the same files and decides alone
// (by id, so reordering the profile file moves no member to another shard).
#include <cstdint>
#include <string>
#include <string_view>

namespace sift {

struct Shard {
  int64_t index = 1;  // K, 1-based
  int64_t count = 1;  // N

  // "K/N" with 1 <= K <= N; an OptionError naming --shard otherwise.
  static Shard parse(std::string_view text);
  bool contains(std::string_view member) const;
  std::string to_string() const;
};

}  // namespace sift
