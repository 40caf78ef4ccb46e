#pragma once
// The last stage of `sift batch`: rows in input order become output lines (score_io.h's
// batch_output_line), and the job is checkpointed: OUT synced, then OUT.progress replaced
// (progress_file.h), at least every checkpoint_seconds and whenever a zstd frame closes.
// Also the progress line on stderr, and --errors-max: the first bad row over the limit
// stops the job, checkpointed just before that row, with an Error.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "batch/batch_output.h"
#include "batch/pipeline_rows.h"
#include "batch/progress_file.h"
#include "core/progress.h"
#include "formats/score_io.h"

namespace sift::batch {

struct WriterSettings {
  std::filesystem::path output;  // for messages
  nlohmann::ordered_json artifact;  // artifact_provenance_json: the labeler behind every line
  ScoringMode mode = ScoringMode::Mis;
  BatchLine line = BatchLine::PassThrough;
  std::optional<int64_t> errors_max;  // bad rows allowed in the whole job; none: no limit
  double checkpoint_seconds = 2.0;    // 0: after every batch of rows
  int64_t input_file_size = 0;
};

class BatchWriter {
 public:
  // `start` is the checkpoint the job continues from (zero counts for a new job).
  BatchWriter(BatchOutput& output, JobProgress start, WriterSettings settings, ProgressReporter& progress);

  void write(ScoredBatch& batch);  // in input order
  void checkpoint();               // sync OUT, then replace OUT.progress
  // The input ended at `input_end`: the last frame, the final checkpoint (complete), side files removed.
  void finish(const LineEnd& input_end);

  const JobTotals& run_totals() const { return run_; }
  const JobTotals& job_totals() const { return state_.totals; }
  // Of this run's prefill tokens, the query tokens reused from the query-KV cache instead of run.
  int64_t run_cached_tokens() const { return run_cached_tokens_; }

 private:
  void write_row(const PendingRow& row, const RowResult& result, const LineEnd& end);
  // Runs a write to OUT or its side files; a failure (a full disk) is rethrown saying what the
  // last checkpoint holds and how to go on.
  template <typename Write>
  void write_or_explain(Write&& write);
  void report_progress();

  BatchOutput& output_;
  JobProgress state_;
  WriterSettings settings_;
  ProgressReporter& progress_;
  std::filesystem::path progress_path_;
  JobTotals run_;
  int64_t run_cached_tokens_ = 0;
  int64_t checkpointed_rows_ = 0;  // rows the progress file on disk records
  double start_fraction_;        // of the input file consumed at this run's first row (-1: none yet)
  int64_t last_file_offset_ = 0;  // input file bytes consumed up to the last row written
  std::set<std::string> warned_fields_;
  std::chrono::steady_clock::time_point last_checkpoint_;
};

}  // namespace sift::batch
