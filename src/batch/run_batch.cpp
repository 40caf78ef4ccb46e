#include "batch/run_batch.h"

#include <chrono>
#include <vector>

#include "batch/batch_writer.h"
#include "batch/job_fingerprint.h"
#include "batch/output_guard.h"
#include "batch/stage_pipeline.h"
#include "core/error.h"
#include "io/path_lock.h"

namespace sift::batch {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Refuses an output that cannot be written: --mode generate, OUT over a file the job reads,
// OUT or a side file that is not a regular file.
void check_output(const BatchOptions& options) {
  if (options.scoring.mode == ScoringMode::Generate)
    fail("sift batch: --mode generate is not supported (mis, independent or prefix)");
  std::vector<std::filesystem::path> protected_files = model_files(options.model_dir);
  protected_files.push_back(options.input);
  check_output_paths(options.output, protected_files);
}

// Refuses what would overwrite an output or resume the wrong thing (before the labeler loads);
// returns the checkpoint to continue from, if any.
std::optional<JobProgress> preflight(const BatchOptions& options) {
  const std::filesystem::path progress_path = progress_file_path(options.output);
  std::optional<JobProgress> recorded = read_checkpoint(progress_path);
  const bool output_exists = std::filesystem::exists(options.output);
  const std::string out = options.output.string();
  if (!options.resume) {
    if (output_exists || recorded)
      fail("{}: {} already; sift batch never overwrites an output: --resume continues its job, or choose another "
           "--output",
           output_exists ? out : progress_path.string(), output_exists ? "exists" : "exists (the progress of a job)");
    return std::nullopt;
  }
  if (recorded && !output_exists) {
    if (recorded->output.file.bytes > 0 || recorded->output.pending.bytes > 0)
      fail("{}: missing, but {} records {} rows written to it: the output was removed; remove the progress file too "
           "to start the job over",
           out, progress_path.string(), recorded->totals.rows);
    return std::nullopt;  // killed before any row was written: start over
  }
  if (!recorded && output_exists && std::filesystem::file_size(options.output) > 0)
    fail("{}: exists but has no progress file {}: it was not written by sift batch (or its progress file was "
         "removed), so there is nothing to resume from",
         out, progress_path.string());
  return recorded;
}

std::string position_text(const LineEnd& end) {
  return fmt::format("{} lines, {} decoded bytes, resuming at byte {}{}", end.line_number, end.next_offset,
                     end.next.restart_offset,
                     end.next.skip_bytes > 0 ? fmt::format(" + {} decoded bytes", end.next.skip_bytes) : "");
}

// Reads again, from the start of the input, the lines the checkpoint says were read, and
// returns where they end: there, and nowhere else, must the checkpoint's input position be (a
// complete job's at the end of the input). What it records of the input is so checked, not
// trusted: a position or line count changed by hand (checksum and all) is refused before
// anything is written, and reading goes on from where those lines really end. One pass over
// what was read, decoding a compressed input; no line is parsed.
LineEnd read_lines_read(ResumableLineReader& reader, const ResumableInput& input, const JobProgress& recorded,
                        const std::filesystem::path& progress_path) {
  const LineEnd recorded_end{recorded.lines_read, recorded.resume, recorded.input_offset, 0};
  LineEnd end;
  ResumableLine line;
  while (end.line_number < recorded.lines_read && reader.next(line)) end = end_of(line);
  if (end.line_number != recorded_end.line_number || end.next != recorded_end.next ||
      end.next_offset != recorded_end.next_offset)
    fail("{}: the input position it records ({}) is not where {} ({}): the progress file was changed, or does not "
         "belong to this input; nothing was changed",
         progress_path.string(), position_text(recorded_end),
         end.line_number < recorded.lines_read
             ? fmt::format("{} ends: it has only {} lines", input.path().string(), end.line_number)
             : fmt::format("the first {} lines of {} end", end.line_number, input.path().string()),
         position_text(end));
  if (recorded.complete && reader.next(line))
    fail("{}: records a complete job of {} input lines, but {} has more: the progress file was changed, or does not "
         "belong to this input; nothing was changed",
         progress_path.string(), recorded.lines_read, input.path().string());
  return end;
}

// A complete job's OUT must be as its checkpoint left it: its length, the SHA-256 of its end,
// its rows.
void check_complete_output(const std::filesystem::path& output, bool zstd, const JobProgress& recorded,
                           const std::filesystem::path& progress_path) {
  FileDigest::resume(output, recorded.output.file, progress_path);
  std::error_code error;
  const auto size = std::filesystem::file_size(output, error);
  if (error || int64_t(size) != recorded.output.file.bytes)
    fail("{}: {} bytes, but {} records {} for the complete job: it was changed after its job completed",
         output.string(), error ? 0 : size, progress_path.string(), recorded.output.file.bytes);
  check_output_rows(output, zstd, recorded.output, recorded.totals.rows, progress_path);
}

}  // namespace

nlohmann::ordered_json BatchSummary::to_json(const std::filesystem::path& output) const {
  return {{"output", output.string()},
          {"rows", run.rows},
          {"labels", run.labels},
          {"errors", run.errors},
          {"prefill_tokens", run.prefill_tokens},
          {"cached_tokens", cached_tokens},
          {"seconds", seconds},
          {"labels_per_second", seconds > 0 ? double(run.labels) / seconds : 0.0},
          {"load_seconds", load_seconds},
          {"resumed", resumed},
          {"output_rows", job.rows},
          {"output_errors", job.errors}};
}

BatchSummary run_batch(const BatchOptions& options, ProgressReporter& progress) {
  const Clock::time_point load_start = Clock::now();
  check_output(options);
  const PathLock lock(options.output);  // a second run of the job fails at once, naming this one
  std::optional<JobProgress> recorded = preflight(options);
  const LoadOptions load{.threads = options.inference_threads,
                         .weights = options.weights,
                         .query_cache_bytes = options.query_cache_bytes};
  const JobLabeler loaded = options.load_labeler ? options.load_labeler(options.model_dir, load)
                                                 : JobLabeler{Labeler::load(options.model_dir, load), std::nullopt};
  const Labeler& labeler = loaded.labeler;
  const nlohmann::ordered_json job =
      job_fingerprint(options.model_dir, labeler, options.scoring, options.weights, options.line, options.shard,
                      options.input, loaded.unverified_engines);
  const std::filesystem::path progress_path = progress_file_path(options.output);
  BatchSummary summary;
  JobProgress start;
  start.job = job;
  if (recorded) {
    check_same_arithmetic(recorded->job, job, progress_path);
    check_same_job(recorded->job, job, progress_path);
    summary.resumed = true;
    summary.job = recorded->totals;
    start = *recorded;
  }
  // The input, read to the checkpoint's position and checked against it, and the output,
  // checked against the checkpoint and cut back to it, before anything is written (a new job:
  // created, or an empty OUT with no progress file taken as it is).
  ResumableInput input(options.input);
  ResumableLineReader reader(input);
  const bool zstd = is_zstd_output(options.output);
  LineEnd input_start;
  if (recorded) input_start = read_lines_read(reader, input, start, progress_path);
  if (recorded && recorded->complete) {
    check_complete_output(options.output, zstd, start, progress_path);
    summary.already_complete = true;
    summary.load_seconds = seconds_since(load_start);
    return summary;
  }
  std::unique_ptr<BatchOutput> output;
  if (recorded) {
    output = resume_batch_output(options.output, zstd, start.output, start.totals.rows, progress_path);
  } else {
    output = std::filesystem::exists(options.output) ? resume_batch_output(options.output, zstd, {}, 0, progress_path)
                                                     : create_batch_output(options.output, zstd);
    start.output = output->state();
    write_checkpoint(progress_path, start);  // from here on --resume finds the job
  }
  start.input_path = options.input.string();  // informative: the input may have moved since
  summary.load_seconds = seconds_since(load_start);

  WriterSettings settings{options.output,
                          artifact_provenance_json(labeler, options.scoring),
                          options.scoring.mode,
                          options.line,
                          options.errors_max,
                          options.checkpoint_seconds,
                          input.file_size()};
  BatchWriter writer(*output, std::move(start), std::move(settings), progress);

  const Clock::time_point run_start = Clock::now();
  Context context = labeler.context();
  const LineEnd input_end = run_stages(labeler, context, options, reader, input_start, writer);
  writer.finish(input_end);
  summary.run = writer.run_totals();
  summary.cached_tokens = writer.run_cached_tokens();
  summary.job = writer.job_totals();
  summary.seconds = seconds_since(run_start);
  return summary;
}

}  // namespace sift::batch
