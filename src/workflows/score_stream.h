#pragma once
// The `sift score` loop: JSON lines in, exactly one JSON line out per input line, in input
// order (score_io.h). A line that cannot be parsed or scored becomes an error line in its
// place and the run goes on.
//
// A reader thread parses and tokenizes lines ahead of the scorer (bounded: two forward calls'
// worth of tokens). The scorer takes whatever is queued, up to one call's tokens
// (--max-batch-tokens), and scores those rows together, so short rows share forward calls; it
// never waits for a full batch, so rows typed one by one are scored as they come. Output
// lines are flushed after each batch, so an interrupted run keeps every batch it finished.
#include <chrono>
#include <cstdint>
#include <functional>
#include <istream>
#include <ostream>

#include "scoring/engine.h"

namespace sift {

struct StreamStats {
  int64_t lines = 0;   // input lines read (= output lines written)
  int64_t errors = 0;  // error lines among them
  int64_t labels = 0;  // items scored
  double seconds = 0;
};

// Called about every `progress_interval` with the running totals (e.g. to print a progress
// line on stderr); never called when the interval is zero.
using ProgressFn = std::function<void(const StreamStats&)>;

StreamStats score_stream(const ScoringEngine& labeler, std::istream& in, std::ostream& out, const ScoringOptions& options,
                         const ProgressFn& progress = {},
                         std::chrono::duration<double> progress_interval = std::chrono::seconds(0));

}  // namespace sift
