#pragma once
// The stable C++ API of sift: load a labeler directory, score rows of (query, items).
//
//   sift::Labeler labeler = sift::Labeler::load("models/default-labeler");
//   sift::RowResult r = labeler.score("profile text", {"Python", "Kubernetes"});
//   // r.scores[i]: P(yes) of item i; r.labels[i]: score >= threshold
//
// A labeler directory holds config.json + model.safetensors (a Hugging Face checkpoint),
// tokenizer.json and sift.json (prompt templates, answer tokens, threshold, version). Scores
// follow the scoring contract (docs/scoring-contract.md): every item's score is what the
// single prompt [query part; item part] gives, bitwise, whatever else is scored with it,
// in which mode, on how many threads. Everything outside include/sift/ is internal.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sift/error.h"
#include "sift/weights.h"

namespace sift {

// How items are scored; all but generate give the same bits (they differ in speed).
//   mis         : the query once, every item after it in one multi-item pass (the default)
//   independent : one prompt [q; c_i] per item, nothing shared
//   prefix      : the query's KV computed once, each item run against it
//   generate    : packed generation (the baseline the paper compares with): a 1/0 decision
enum class ScoringMode { Mis, Independent, Prefix, Generate };

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

struct ScoringOptions {
  ScoringMode mode = ScoringMode::Mis;
  std::optional<double> threshold;            // overrides sift.json's
  std::optional<int64_t> max_request_tokens;  // one request (query + its items); default from the model
  // One forward call (rows packed together). Default: about 64 MiB of activations, at most
  // the request limit (default_call_tokens, src/scoring/request_sizing.h); a longer row runs
  // alone. Given, it also caps each request, as --max-batch-tokens does.
  std::optional<int64_t> max_batch_tokens;
  Truncate truncate = Truncate::None;  // a row too long for a request: its error, or cut (above)
  TruncationDirection truncation_direction = TruncationDirection::Right;
};

// One row's result. When `error` is set the row failed and nothing else is filled in.
struct RowResult {
  std::vector<std::optional<double>> scores;  // P(yes) per item; generate: 1/0, nullopt = unparsed
  std::vector<std::optional<bool>> labels;    // score >= threshold; nullopt = unparsed
  std::vector<int64_t> unparsed;              // generate: items whose answer was not parsed
  int64_t prefill_tokens = 0;                 // usage: tokens run through the model for this row
  int64_t generated_tokens = 0;               // usage: generate mode's decoded tokens
  int64_t requests = 0;                       // usage: prompts in the mode's own sense
  int64_t truncated_tokens = 0;               // usage: prompt tokens cut by ScoringOptions::truncate
  std::vector<std::string> generated_texts;   // generate: what the model wrote, one per request
  std::string error;                          // what was wrong with the row
};

struct Row {
  std::string query;
  std::vector<std::string> items;
};

// A line of a JSON-lines file and its number in the file (from 1).
struct NumberedLine {
  std::string_view text;  // without its "\n"
  int64_t number = 0;
};

// How a labeler is loaded.
struct LoadOptions {
  int threads = 0;                                // <= 0: OMP_NUM_THREADS or all cores
  WeightStorage weights = WeightStorage::Auto;    // sift/weights.h: auto keeps the checkpoint's type
};

class ScoringEngine;  // internal

class Labeler {
 public:
  // Loads a labeler directory; throws Error naming the file and field that is wrong.
  // threads <= 0: OMP_NUM_THREADS or all cores.
  static Labeler load(const std::filesystem::path& dir, int threads = 0);
  static Labeler load(const std::filesystem::path& dir, const LoadOptions& options);

  Labeler(Labeler&&) noexcept;
  Labeler& operator=(Labeler&&) noexcept;
  ~Labeler();

  // One row; a row that cannot be scored (invalid UTF-8, too long for the model) throws Error.
  RowResult score(std::string_view query, const std::vector<std::string>& items,
                  const ScoringOptions& options = {}) const;
  // Many rows, packed into forward calls (short rows share a call); a bad row gets its
  // error in its result and the others are scored.
  std::vector<RowResult> score_rows(std::span<const Row> rows, const ScoringOptions& options = {}) const;
  // `sift batch`'s output, byte for byte: each input line (a row as `sift score` reads it,
  // its other fields passed through) gives the line `sift batch` writes for it (no "\n"), in
  // order: the scored line, the row's other fields and "artifact": {"version", "threshold"},
  // or the error line {"error", "id"?, "line"}. Rows share forward calls as in score_rows.
  // echo: the lines of `sift batch --echo` (the whole row as read, then its scores).
  std::vector<std::string> score_lines(std::span<const NumberedLine> lines, const ScoringOptions& options = {},
                                       bool echo = false) const;

  const std::string& version() const;  // sift.json "version"
  double threshold() const;            // sift.json "threshold"
  std::string artifact_json() const;   // sift.json as loaded, a JSON object (every field, unknown ones too)
  int threads() const;

  const ScoringEngine& engine() const;  // internal: sift's own tools reach the engine here

 private:
  struct Impl;
  explicit Labeler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sift
