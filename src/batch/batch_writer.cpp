#include "batch/batch_writer.h"

#include <fmt/format.h>

#include "core/error.h"

namespace sift::batch {
namespace {

double fraction_of(int64_t offset, int64_t size) { return size > 0 ? std::min(1.0, double(offset) / double(size)) : 1.0; }

}  // namespace

BatchWriter::BatchWriter(BatchOutput& output, JobProgress start, WriterSettings settings, ProgressReporter& progress)
    : output_(output),
      state_(std::move(start)),
      settings_(std::move(settings)),
      progress_(progress),
      progress_path_(progress_file_path(settings_.output)),
      start_fraction_(-1),
      last_checkpoint_(std::chrono::steady_clock::now()) {
  state_.output = output_.state();
  checkpointed_rows_ = state_.totals.rows;
}

template <typename Write>
void BatchWriter::write_or_explain(Write&& write) {
  try {
    write();
  } catch (const Error& e) {
    fail("{}; {} records the job's first {} rows: make room, then run the same command with --resume to go on",
         e.what(), progress_path_.string(), checkpointed_rows_);
  }
}

void BatchWriter::checkpoint() {
  write_or_explain([&] {
    output_.sync();
    state_.output = output_.state();
    write_checkpoint(progress_path_, state_);
  });
  checkpointed_rows_ = state_.totals.rows;
  write_or_explain([&] { output_.checkpoint_done(); });
  last_checkpoint_ = std::chrono::steady_clock::now();
}

void BatchWriter::write_row(const PendingRow& row, const RowResult& result, const LineEnd& end) {
  const bool bad = !result.error.empty();
  if (bad && settings_.errors_max && state_.totals.errors + 1 > *settings_.errors_max) {
    checkpoint();
    fail("{}: line {}: {} (bad row {}, over --errors-max {}); stopped with the {} rows before it in {}: raise "
         "--errors-max and run again with --resume to go on",
         state_.input_path, end.line_number, result.error, state_.totals.errors + 1, *settings_.errors_max,
         state_.totals.rows, settings_.output.string());
  }
  if (!bad)
    for (const std::string& field : shadowed_passthrough_fields(row.row))
      if (warned_fields_.insert(field).second)
        progress_.message(fmt::format("sift batch: input field \"{}\" is not passed through: the output's own \"{}\" "
                                      "takes its place",
                                      field, field));
  const std::string line = batch_output_line(row.line_number, row.row, result, settings_.mode, settings_.artifact,
                                             settings_.line);
  write_or_explain([&] { output_.append_line(line); });
  for (JobTotals* totals : {&state_.totals, &run_}) {
    totals->rows += 1;
    totals->errors += bad ? 1 : 0;
    totals->labels += bad ? 0 : int64_t(result.scores.size());
    totals->prefill_tokens += result.prefill_tokens;
  }
  run_cached_tokens_ += result.cached_tokens;
  state_.lines_read = end.line_number;
  state_.resume = end.next;
  state_.input_offset = end.next_offset;
  if (output_.frame_closed()) checkpoint();
}

void BatchWriter::write(ScoredBatch& batch) {
  if (start_fraction_ < 0 && !batch.positions.empty())
    start_fraction_ = fraction_of(batch.positions.front().file_offset, settings_.input_file_size);
  for (size_t r = 0; r < batch.rows.size(); ++r) {
    write_row(batch.rows[r], batch.results[r], batch.positions[r]);
    last_file_offset_ = batch.positions[r].file_offset;
  }
  const double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_checkpoint_).count();
  if (since >= settings_.checkpoint_seconds) checkpoint();
  report_progress();
}

void BatchWriter::report_progress() {
  const double elapsed = progress_.elapsed_seconds();
  const double done = fraction_of(last_file_offset_, settings_.input_file_size);
  std::string detail = fmt::format("{} rows in {}", state_.totals.rows, settings_.output.filename().string());
  if (done > 0) detail += fmt::format(" of ~{:.0f} ({:.0f}% of the input)", double(state_.totals.rows) / done, 100 * done);
  detail += fmt::format(", {:.0f} labels/s", elapsed > 0 ? double(run_.labels) / elapsed : 0.0);
  if (start_fraction_ >= 0 && done > start_fraction_ && elapsed > 0)
    detail += ", ETA " + format_duration(elapsed * (1 - done) / (done - start_fraction_));
  detail += fmt::format(", {} errors", state_.totals.errors);
  progress_.update(run_.rows, detail);
}

void BatchWriter::finish(const LineEnd& input_end) {
  write_or_explain([&] { output_.finish(); });
  state_.lines_read = input_end.line_number;
  state_.resume = input_end.next;
  state_.input_offset = input_end.next_offset;
  state_.complete = true;
  checkpoint();
  output_.remove_side_files();
}

}  // namespace sift::batch
