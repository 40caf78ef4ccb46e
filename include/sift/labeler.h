#pragma once
// The C++ API of sift: load a labeler directory once, score rows of (query, items) from as
// many threads as you like.
//
//   sift::Labeler labeler = sift::Labeler::load("models/default-labeler");
//   sift::RowResult r = labeler.score("profile text", {"Python", "Kubernetes"});
//   // r.scores[i]: P(yes) of item i; r.labels[i]: score >= threshold
//
// A labeler directory holds config.json + model.safetensors (a Hugging Face checkpoint),
// tokenizer.json and sift.json (prompt templates, answer tokens, threshold, version). Scores
// follow the scoring contract (docs/scoring-contract.md): every item's score is what the
// single prompt [query part; item part] gives, bitwise, whatever else is scored with it,
// in which mode, on which context, on how many threads.
//
// A Labeler is the loaded model: its weights are read-only and exist once, however many
// copies of the Labeler (they share it, reference counted) and contexts there are. A Context
// is one user of it: its own KV cache and workspace, scoring on the calling thread, one
// thread at a time. Labeler::score and score_rows take a context from the labeler's own
// pool (one per thread scoring at that moment), so threads sharing one Labeler score at once.
// Everything outside include/sift/ is internal.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sift/error.h"
#include "sift/weight_storage.h"

namespace sift {

// How items are scored; all but generate give the same bits (they differ in speed).
//   mis         : the query once, every item after it in one multi-item pass (the default)
//   independent : one prompt [q; c_i] per item, nothing shared
//   prefix      : the query's KV computed once, each item run against it
//   generate    : packed generation (the baseline the paper compares with): a 1/0 decision
enum class ScoringMode { Mis, Independent, Prefix, Generate };

// Every mode, in the order help texts and messages list them: the one list their names come
// from (scoring_mode_name of each), for the CLI's --mode and Python's mode=.
inline constexpr ScoringMode kScoringModes[] = {ScoringMode::Mis, ScoringMode::Independent, ScoringMode::Prefix,
                                                ScoringMode::Generate};

std::optional<ScoringMode> parse_scoring_mode(std::string_view name);  // "mis", "independent", ...
std::string_view scoring_mode_name(ScoringMode mode);

// What a row too long for a request (its query with one of its items over the request limit)
// gives up, as TEI's `truncate` and `truncation_direction`: by default nothing (the row's
// error); else user text, never template text, until every item fits with its query:
//   Query : the query's text (shared by every item), down to what the longest item leaves
//   Items : the text of each item that does not fit, down to what the query leaves it
// Right cuts the end of the text (keeps its beginning), Left its beginning. The cut text is
// rendered and tokenized like any other (the scoring contract holds); RowResult's
// truncated_tokens counts the prompt tokens cut. Not in mode generate.
enum class Truncate { None, Query, Items };
enum class TruncationDirection { Right, Left };
std::optional<Truncate> parse_truncate(std::string_view name);  // "query", "items" ("none")
std::optional<TruncationDirection> parse_truncation_direction(std::string_view name);  // "right", "left"
std::string_view truncate_name(Truncate truncate);
std::string_view truncation_direction_name(TruncationDirection direction);

// What happens to a long item: one whose part is longer than ScoringOptions::max_item_tokens,
// or than what the request limit leaves beside its query (scoring/long_items.h, the one rule):
//   Error    : the row's error (the default, but for Truncate::Items)
//   Truncate : its text cut to fit, as Truncate::Items cuts it (the same rule, spelled twice)
//   Chunk    : scored by windows: overlapping stretches of its text, each an ordinary item
//              (the item template around the stretch), all of them beside the row's other
//              items in its MIS requests; the item's score is the greatest of its windows'
// Not in mode generate.
enum class LongItems { Error, Truncate, Chunk };
std::optional<LongItems> parse_long_items(std::string_view name);  // "error", "truncate", "chunk"
std::string_view long_items_name(LongItems long_items);

// Windows of an item the row scored by windows (LongItems::Chunk): each window's text, as
// [begin, end) in characters (Unicode code points) of the item's text, in order; the window
// whose score is the item's (the first of the greatest).
struct ItemWindows {
  int64_t item = 0;                              // the item's index in the row
  std::vector<std::pair<int64_t, int64_t>> spans;  // one per window
  int64_t best = -1;                             // index into spans (RowResult only)
};

// Windows of at most this many per item by default (ScoringOptions::max_windows).
inline constexpr int64_t kDefaultMaxWindows = 256;

struct ScoringOptions {
  ScoringMode mode = ScoringMode::Mis;
  std::optional<double> threshold;            // overrides sift.json's
  std::optional<int64_t> max_request_tokens;  // one request (query + its items); default from the model
  // One forward call (rows packed together). Default: about 64 MiB of activations, at most
  // the request limit; a longer row runs alone. Given, it also caps each request, as
  // --max-batch-tokens does.
  std::optional<int64_t> max_batch_tokens;
  Truncate truncate = Truncate::None;  // a row too long for a request: its error, or cut (above)
  TruncationDirection truncation_direction = TruncationDirection::Right;
  // A long item (LongItems above); unset: Truncate when truncate is Items, else Error.
  std::optional<LongItems> long_items;
  // An item part longer than this many prompt tokens is long (default: only one that does not
  // fit a request with its query); with Chunk, a window's most tokens. At most the request limit.
  std::optional<int64_t> max_item_tokens;
  // Chunk: tokens of item text from one window's start to the next's (default 3/4 of the text
  // tokens a window holds, so windows overlap by a quarter); at most what a window holds.
  std::optional<int64_t> window_stride;
  int64_t max_windows = kDefaultMaxWindows;  // Chunk: an item needing more windows is the row's error
};

// What a labeler makes of ScoringOptions (Labeler::resolve), every value checked.
struct ResolvedOptions {
  double threshold = 0.5;      // the threshold labels use: the option, else sift.json's
  int64_t request_tokens = 0;  // the most tokens of one request: min(max_request_tokens, max_batch_tokens)
  int64_t call_tokens = 0;     // about how many prompt tokens of rows share one forward call
};

// What mode generate adds to a row's result: what the model wrote, and what could not be read.
struct Generation {
  std::vector<std::string> texts;  // what the model wrote, one per request
  std::vector<int64_t> unparsed;   // items whose answer was not parsed (score and label nullopt)
  int64_t generated_tokens = 0;    // usage: tokens decoded
};

// One row's result. When `error` is set the row failed and no scores or labels are filled in.
struct RowResult {
  std::vector<std::optional<double>> scores;  // P(yes) per item; generate: 1/0, nullopt = unparsed
  std::vector<std::optional<double>> probabilities;  // calibrated P(yes) per item: sift.json's calibration_map
                                                    // applied to the score; empty without a map (and in generate)
  std::vector<std::optional<bool>> labels;    // score (or, with threshold_on probability, the probability)
                                              // >= threshold; nullopt = unparsed
  int64_t prefill_tokens = 0;                 // usage: the prompt tokens of the row's requests (its cost scored alone)
  int64_t cached_tokens = 0;                  // usage: of those, query tokens reused from the query-KV cache or
                                              // an earlier row of the call instead of run (prefill - cached ran)
  int64_t requests = 0;                       // usage: prompts in the mode's own sense
  int64_t truncated_tokens = 0;               // usage: prompt tokens cut by ScoringOptions::truncate
  std::vector<ItemWindows> windows;           // the items scored by windows (LongItems::Chunk), in order
  int64_t window_tokens = 0;                  // usage, when windows is not empty: a window's most prompt
  int64_t window_stride = 0;                  // tokens, and the text tokens between window starts
  std::optional<Generation> generation;       // mode generate's texts, unparsed items and decoded tokens
  std::string error;                          // what was wrong with the row
};

struct Row {
  std::string query;
  std::vector<std::string> items;
};

// A row's prompt token ids (Labeler::tokenize): the query part and each item part, as the
// scoring contract builds them. `error` is set (and the ids empty) when the row cannot be
// encoded (invalid UTF-8).
struct TokenizedRow {
  std::vector<int32_t> query;
  std::vector<std::vector<int32_t>> items;
  std::string error;
  int64_t truncated_tokens = 0;  // prompt tokens cut (ScoringOptions::truncate)
  // Items scored by windows (LongItems::Chunk): each one's windows stand in `items` in its
  // place, one item part per window, in order (so `items` has more parts than the row items).
  std::vector<ItemWindows> windows;
  int64_t window_tokens = 0, window_stride = 0;
};

// Compute threads: each costs memory, and more than kMaxThreadsPerCore per core buy nothing.
// max_threads() is that many for this machine's cores: the most a thread count given to sift
// (LoadOptions::threads, the CLI's --threads, Python's threads=) is worth; a larger count is
// capped there (by the CLI and the Python package, with a warning).
inline constexpr int kMaxThreadsPerCore = 4;
int max_threads();

// The query-KV cache's budget, in MiB, unless one is given: LoadOptions::query_cache_bytes, the
// CLI's --kv-cache-mb (sift score, sift batch, sift serve) and Python's query_cache_mb= all
// default to it. The cache holds the keys of recent queries, so a row that repeats one (the
// next round of a profile, the second half of a split row) runs only its items; it never
// changes a score. It takes memory only as queries fill it. (Before: 64 MiB in sift score and
// sift batch, none in this API and in Python.)
inline constexpr int64_t kDefaultQueryCacheMb = 256;
inline constexpr int64_t kDefaultQueryCacheBytes = kDefaultQueryCacheMb << 20;
// The largest budget --kv-cache-mb and query_cache_mb= take: 1 TiB.
inline constexpr double kMaxQueryCacheMb = 1048576;

// How a labeler is loaded.
struct LoadOptions {
  int threads = 0;                              // compute threads of each context; <= 0: the cores
                                                // (OMP_NUM_THREADS or all), split among the contexts
                                                // scoring at the same moment
  WeightStorage weights = WeightStorage::Auto;  // sift/weight_storage.h: auto keeps the checkpoint's type
  int64_t query_cache_bytes = kDefaultQueryCacheBytes;  // the query-KV cache its contexts share: rows
                                                        // that repeat a query run only their items; 0: none
};

class Context;

class Labeler {
 public:
  // Loads a labeler directory; throws Error naming the file and field that is wrong.
  static Labeler load(const std::filesystem::path& dir, int threads = 0);
  static Labeler load(const std::filesystem::path& dir, const LoadOptions& options);

  // One row; a row that cannot be scored (invalid UTF-8, too long for the model) throws Error.
  RowResult score(std::string_view query, const std::vector<std::string>& items,
                  const ScoringOptions& options = {}) const;
  // Many rows, packed into forward calls (short rows share a call); a bad row gets its
  // error in its result and the others are scored.
  std::vector<RowResult> score_rows(std::span<const Row> rows, const ScoringOptions& options = {}) const;
  // Rows tokenized already (tokenize below); not mode generate, which scores text.
  std::vector<RowResult> score_tokenized(std::span<const TokenizedRow> rows, const ScoringOptions& options = {}) const;

  // A context of its own (threads <= 0: the labeler's), for a thread that scores a lot.
  Context context(int threads = 0) const;
  // The row's prompt ids, for a pipeline that tokenizes ahead of scoring (Context::score_tokenized),
  // cut to fit a request as options.truncate says.
  TokenizedRow tokenize(std::string_view query, std::span<const std::string> items,
                        const ScoringOptions& options = {}) const;
  // The options checked (an OptionError names a bad one) and what they come to.
  ResolvedOptions resolve(const ScoringOptions& options) const;

  const std::string& version() const;  // sift.json "version"
  double threshold() const;            // sift.json "threshold"
  bool calibrated() const;             // sift.json has a "calibration_map": rows get `probabilities`
  bool thresholds_probability() const; // sift.json "threshold_on" is "probability"
  std::string artifact_json() const;   // sift.json as loaded, a JSON object (every field, unknown ones too)
  int threads() const;                 // LoadOptions::threads, or the cores


 private:
  friend class Context;
  friend struct LabelerAccess;  // sift's own ways to make one (internal)
  struct Impl;                  // the loaded model and its runtime, shared by copies and contexts
  explicit Labeler(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

// One user of a Labeler: a KV cache and a workspace of its own over the shared weights. Use
// it from one thread at a time; make one per thread (or per worker) to score in parallel.
class Context {
 public:
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  ~Context();

  RowResult score(std::string_view query, const std::vector<std::string>& items, const ScoringOptions& options = {});
  std::vector<RowResult> score_rows(std::span<const Row> rows, const ScoringOptions& options = {});
  // Rows tokenized already (Labeler::tokenize); not mode generate, which scores text.
  std::vector<RowResult> score_tokenized(std::span<const TokenizedRow> rows, const ScoringOptions& options = {});

  int threads() const;
  const Labeler& labeler() const;

 private:
  friend class Labeler;
  struct Impl;
  explicit Context(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sift
