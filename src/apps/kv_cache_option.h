#pragma once
// --kv-cache-mb: the query-KV cache's budget (scoring/prefix_cache.h), the same option on every
// command that scores rows which may repeat a query (the next round of a profile, the second
// half of a split row): such a row prefills only its items. Scores are the same bits either way.
#include <CLI/CLI.hpp>

#include <cstdint>

#include "apps/cli.h"

namespace sift::apps {

inline CLI::Option* add_kv_cache_option(CLI::App* cmd, double& megabytes) {
  return cmd
      ->add_option("--kv-cache-mb", megabytes,
                   "query-KV cache budget in MiB: rows that repeat a query reuse its keys and run only their "
                   "items; 0 turns it off")
      ->capture_default_str()
      ->check(decimal_in(0, 1048576));
}

inline int64_t kv_cache_bytes(double megabytes) { return static_cast<int64_t>(megabytes * 1024 * 1024); }

}  // namespace sift::apps
