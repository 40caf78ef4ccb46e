#pragma once
// `sift batch`: labels a JSON-lines file of rows into OUT, streaming, resumable, sharded.
//
//   reader ──chunks──▶ tokenizer pool (T threads) ──rows, in order──▶ scorer ──▶ writer
//   (stage_pipeline.h: the pipeline of formats/row_pipeline.h; the scorer is a context of the
//    labeler, whose scheduler packs rows into forward calls and splits long rows into requests)
//
// Each arrow is a bounded queue (bytes, prompt tokens, batches), so memory does not grow with
// the input. The writer (batch_writer.h) writes in input order and checkpoints; a kill at any
// moment, then the same command with --resume, leaves OUT byte-identical to an uninterrupted
// run: OUT is cut back to the checkpoint and the input read on from its position; rows are
// scored bit-identically whatever rows share their forward calls.
//
// Without --resume an existing OUT (or OUT.progress) is an Error, never overwritten. With
// --resume: OUT.progress must be intact (progress_file.h) and record the same job
// (job_fingerprint.h: a job begun with one arithmetic is not continued with another), and OUT, its tail file and the input must be as it records them
// (batch_output.h, file_digest.h; a resume position inside a line is refused), all checked
// before anything is written or cut; a complete job is left as it is; a job never started
// (no OUT, or an empty OUT without progress file) starts. OUT is locked for the run
// (path_lock.h), and must be a regular file or absent (output_guard.h).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "batch/progress_file.h"
#include "core/progress.h"
#include "formats/score_io.h"
#include "io/shard.h"
#include "sift/labeler.h"

namespace sift::batch {

// The labeler a job scores with, and whose arithmetic its rows are (job_fingerprint.h): unset
// for sift's own (this machine, or sift serve replicas that proved the labeler: the same
// bits); else the model name of engines that cannot prove their labeler (SGLang).
struct JobLabeler {
  Labeler labeler;
  std::optional<std::string> unverified_engines;
};

struct BatchOptions {
  std::filesystem::path model_dir, input, output;
  ScoringOptions scoring;  // mode mis, independent or prefix; threshold; request and call limits
  WeightStorage weights = WeightStorage::Auto;  // how the labeler's matrices are held (--weights)
  BatchLine line = BatchLine::PassThrough;      // --echo: each line holds the whole row (formats/score_io.h)
  Shard shard;
  bool resume = false;
  int inference_threads = 0;  // <= 0: the process default (--threads)
  int64_t query_cache_bytes = kDefaultQueryCacheBytes;  // the query-KV cache (--kv-cache-mb): rows repeating a query run only their items
  int tokenize_threads = 1;
  std::optional<int64_t> errors_max;
  double checkpoint_seconds = 2.0;
  // How the labeler is loaded once the job is checked (the command's --engine); unset: on
  // this machine, Labeler::load.
  std::function<JobLabeler(const std::filesystem::path&, const LoadOptions&)> load_labeler;
};

struct BatchSummary {
  JobTotals run;                 // rows written by this run
  JobTotals job;                 // rows in OUT
  int64_t cached_tokens = 0;     // of run.prefill_tokens, query tokens reused from the query-KV cache instead of run
  double seconds = 0;            // this run's labeling, from the first row read to the final checkpoint
  double load_seconds = 0;       // loading the labeler, fingerprinting the job, opening OUT and IN
  bool resumed = false;          // continued from a checkpoint
  bool already_complete = false; // --resume of a finished job: nothing done

  // {"output", "rows", "labels", "errors", "prefill_tokens", "cached_tokens", "seconds", "labels_per_second",
  //  "load_seconds", "resumed", "output_rows", "output_errors"}
  nlohmann::ordered_json to_json(const std::filesystem::path& output) const;
};

BatchSummary run_batch(const BatchOptions& options, ProgressReporter& progress);

}  // namespace sift::batch
