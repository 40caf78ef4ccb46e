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

// What the checkpoint says of a plain input must hold in it: the decoded offset is the file
// offset, nothing is skipped, and a complete job read it to its end. (Nothing to compare
// without decoding for compressed input.)
void check_plain_position(const ResumableInput& input, const JobProgress& recorded,
                          const std::filesystem::path& progress_path) {
  const InputPosition& at = recorded.resume;
  if (input.compression() == Compression::none &&
      (at.skip_bytes != 0 || recorded.input_offset != at.restart_offset ||
       (recorded.complete && at.restart_offset != input.file_size())))
    fail("{}: the input position it records (byte {}, {} skipped, {} read, {}) is not one of the plain input {} ({} "
         "bytes): the progress file was changed",
         progress_path.string(), at.restart_offset, at.skip_bytes, recorded.input_offset,
         recorded.complete ? "complete" : "not complete", input.path().string(), input.file_size());
}

// Reading must resume where a line starts (after seeking to the checkpoint's position).
void check_line_start(ResumableLineReader& reader, const ResumableInput& input, const JobProgress& recorded,
                      const std::filesystem::path& progress_path) {
  if (!reader.at_line_start())
    fail("{}: the input position it records (byte {}, {} decoded bytes on) is inside a line of {}: the progress file "
         "was changed, or does not belong to this input",
         progress_path.string(), recorded.resume.restart_offset, recorded.resume.skip_bytes, input.path().string());
}

// A complete job's OUT must be as its checkpoint left it: its length, the SHA-256 of its end.
void check_complete_output(const std::filesystem::path& output, const JobProgress& recorded,
                           const std::filesystem::path& progress_path) {
  FileDigest::resume(output, recorded.output.file, progress_path);
  std::error_code error;
  const auto size = std::filesystem::file_size(output, error);
  if (error || int64_t(size) != recorded.output.file.bytes)
    fail("{}: {} bytes, but {} records {} for the complete job: it was changed after its job completed",
         output.string(), error ? 0 : size, progress_path.string(), recorded.output.file.bytes);
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
  // The input, at the checkpoint's position, checked against it before anything is written.
  ResumableInput input(options.input);
  if (recorded) check_plain_position(input, start, progress_path);
  if (recorded && recorded->complete) {  // nothing to read: a compressed input is not decoded
    check_complete_output(options.output, start, progress_path);
    summary.already_complete = true;
    summary.load_seconds = seconds_since(load_start);
    return summary;
  }
  input.seek(start.resume);
  ResumableLineReader reader(input, start.lines_read, start.input_offset);
  if (recorded) check_line_start(reader, input, start, progress_path);

  // The output, checked against the checkpoint and cut back to it (a new job: created, or an
  // empty OUT with no progress file taken as it is).
  std::unique_ptr<BatchOutput> output;
  const bool zstd = is_zstd_output(options.output);
  if (recorded) {
    output = resume_batch_output(options.output, zstd, start.output, progress_path);
  } else {
    output = std::filesystem::exists(options.output) ? resume_batch_output(options.output, zstd, {}, progress_path)
                                                     : create_batch_output(options.output, zstd);
    start.output = output->state();
    write_checkpoint(progress_path, start);  // from here on --resume finds the job
  }
  start.input_path = options.input.string();  // informative: the input may have moved since
  const LineEnd input_start{start.lines_read, start.resume, start.input_offset, input.file_offset()};
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
