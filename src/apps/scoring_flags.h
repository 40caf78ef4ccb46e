#pragma once
// The scoring flags: how rows are scored and how the labeler is loaded, on every command that
// takes them. One table (scoring_flags.cpp) declares each flag once, as llama.cpp's
// common/arg.cpp declares its flags: its name, its help, its check, its default (a named
// constant) and the commands it applies to, with a note where one command's meaning differs
// (sift serve's --max-batch-tokens is each request's limit too). add_scoring_flags gives a
// command exactly its flags; ScoringFlags holds what was parsed and says what it comes to
// (ScoringOptions, LoadOptions, the engines).
//
//   --mode                                           score batch eval calibrate loadgen
//   --threshold                                      score batch eval label
//   --max-request-tokens                             score batch eval calibrate cost
//   --max-batch-tokens                               score batch serve
//   --truncate, --truncation-direction               score batch
//   --long-items, --max-item-tokens, --window-stride,
//   --max-windows                                    score batch serve
//   --weights                                        score batch eval calibrate label serve selftest logits
//   --kv-cache-mb                                    score batch serve label
//   --engine, --engine-timeout                       score batch eval calibrate label selftest
//
// The mode names come from sift::kScoringModes (sift/labeler.h): a command that takes only
// the modes that give scores (batch, calibrate) gets them from that list.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sift/engines.h"
#include "sift/labeler.h"
#include "sift/weight_storage.h"

namespace sift::apps {

// The commands that take scoring flags; a flag applies to a set of them (Commands).
enum class Command : uint32_t {
  Score = 1u << 0,
  Batch = 1u << 1,
  Eval = 1u << 2,
  Calibrate = 1u << 3,
  Cost = 1u << 4,
  Label = 1u << 5,
  Serve = 1u << 6,
  Loadgen = 1u << 7,
  Selftest = 1u << 8,
  Logits = 1u << 9,
};

class Commands {
 public:
  constexpr Commands(Command command) : bits_(static_cast<uint32_t>(command)) {}  // NOLINT: one is a set
  constexpr bool has(Command command) const { return (bits_ & static_cast<uint32_t>(command)) != 0; }
  constexpr Commands operator|(Commands other) const { return Commands(bits_ | other.bits_); }

 private:
  constexpr explicit Commands(uint32_t bits) : bits_(bits) {}
  uint32_t bits_;
};
constexpr Commands operator|(Command a, Command b) { return Commands(a) | Commands(b); }

// sift serve's --max-batch-tokens unless given: a fixed call, not sift score's activation
// budget (a call holds several clients' requests, each answered when the call ends).
inline constexpr int64_t kServeMaxBatchTokens = 8192;

// --engine URL[,URL...] and --engine-timeout S: score on scoring servers (sift serve replicas,
// SGLang) instead of this machine (sift/engines.h, docs/engines.md). Without --engine a
// command loads and scores as it always has.
struct EngineFlags {
  std::vector<std::string> urls;
  double timeout_seconds = kDefaultEngineTimeoutSeconds;
  bool any() const { return !urls.empty(); }
  EngineOptions options() const { return {.urls = urls, .timeout_seconds = timeout_seconds}; }
};

// The values of the scoring flags, each its default until the command line gives one.
struct ScoringFlags {
  std::optional<std::string> mode;  // unset: mis (sift loadgen: no mode is sent)
  std::optional<double> threshold;
  std::optional<int64_t> max_request_tokens, max_batch_tokens;
  std::string truncate = std::string(truncate_name(Truncate::None));
  std::string truncation_direction = std::string(truncation_direction_name(TruncationDirection::Right));
  std::optional<std::string> long_items;  // unset: the command's default (ScoringOptions::long_items)
  std::optional<int64_t> max_item_tokens, window_stride;
  int64_t max_windows = kDefaultMaxWindows;
  std::string weights = std::string(weight_storage_name(WeightStorage::Auto));
  double kv_cache_mb = kDefaultQueryCacheMb;
  std::vector<std::string> engine_urls;
  double engine_timeout_seconds = kDefaultEngineTimeoutSeconds;

  EngineFlags engines() const { return {.urls = engine_urls, .timeout_seconds = engine_timeout_seconds}; }

  ScoringMode scoring_mode() const;
  WeightStorage weight_storage() const;
  std::optional<LongItems> long_items_choice() const;
  int64_t query_cache_bytes() const;
  // --mode, --threshold, the token limits, --truncate*, --long-items and its windows.
  ScoringOptions scoring_options() const;
  // --weights and --kv-cache-mb (compute threads: the process default). A command without
  // --kv-cache-mb (eval, calibrate) loads without the query-KV cache (add_scoring_flags).
  LoadOptions load_options() const;
};

// Adds the scoring flags `which` takes, exactly those, in the table's order.
void add_scoring_flags(CLI::App* cmd, Command which, ScoringFlags& flags);

// The names of the flags `which` takes ("--mode", ...), in the table's order.
std::vector<std::string> scoring_flag_names(Command which);

// The modes `which` takes for --mode: every one, or (batch, calibrate) those that give scores.
std::vector<ScoringMode> accepted_modes(Command which);
// The modes that give scores (every one but generate), as a message lists them: "mis,
// independent, prefix".
std::string score_mode_names();

}  // namespace sift::apps
