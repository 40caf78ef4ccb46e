#pragma once
// Which input lines a `sift batch --shard K/N` job takes: lines K, K + N, K + 2N, ...
// (numbered from 1), one output row each. The reader, the progress file's checks and
// `sift batch merge` count by this one rule.
#include <cstdint>

#include "io/shard.h"

namespace sift::batch {

inline bool shard_holds_line(const Shard& shard, int64_t line_number) {
  return (line_number - 1) % shard.count == shard.index - 1;
}

// How many of the input lines 1..lines the shard takes: the rows of its output.
inline int64_t shard_rows(const Shard& shard, int64_t lines) {
  return lines >= shard.index ? (lines - shard.index) / shard.count + 1 : 0;
}

}  // namespace sift::batch
