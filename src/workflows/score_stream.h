#pragma once
// The `sift score` loop: JSON lines in, exactly one JSON line out per input line, in input
// order (formats/score_io.h). A line that cannot be read, parsed or scored, whatever the reason
// (a line over --max-line-bytes, invalid JSON, a number beyond a double, a missing field, a row
// too long for the model), becomes an error line in its place and the run goes on.
//
// The rows run through the pipeline of formats/row_pipeline.h (a reader, one tokenizer, the
// scorer on a context of the labeler), each line handed on as it is read, so rows typed one by
// one are scored as they come. Output lines are handed to `write` after each batch, whole
// lines only.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "formats/score_io.h"
#include "io/line_reader.h"
#include "sift/labeler.h"

namespace sift {

struct StreamStats {
  int64_t lines = 0;           // input lines read (= output lines written)
  int64_t errors = 0;          // error lines among them
  int64_t labels = 0;          // items scored
  int64_t unparsed = 0;        // mode generate: items whose answer could not be parsed
  int64_t prefill_tokens = 0;  // the scored rows' prompt tokens (their cost scored alone)
  int64_t cached_tokens = 0;   // of those, query tokens reused from the query-KV cache instead of run
  double seconds = 0;
  std::string first_line;      // the input's first line that is not blank, once the stream ends
                               // (formats/input_shape.h names its shape when no row could be used)
};

struct StreamHooks {
  // After every batch, with the running totals (e.g. a progress line).
  std::function<void(const StreamStats&)> progress;
  // After every row scored (not error rows), with its line number (e.g. to dump generations).
  std::function<void(int64_t line_number, const ScoringRow& row, const RowResult& result)> scored_row;
};

// `write` receives the output, whole lines at a time, in input order: scored lines
// (row_result_to_json), or with `echo` the rows with their scores (echoed_row_to_json).
StreamStats score_stream(const Labeler& labeler, LineReader& in, const std::function<void(std::string_view)>& write,
                         const ScoringOptions& options, const StreamHooks& hooks = {}, bool echo = false);

}  // namespace sift
