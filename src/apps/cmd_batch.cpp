// sift batch: label a JSON-lines file of rows offline, streaming, resumable after a crash,
// split over machines with --shard; `sift batch merge` joins the shards (src/batch/).
// Progress on stderr (none with the global --quiet); a JSON summary on stdout (--pretty).
#include <fmt/format.h>

#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "apps/model_option.h"
#include "apps/command.h"
#include "apps/engine_option.h"
#include "apps/scoring_flags.h"
#include "batch/merge_shards.h"
#include "batch/resumable_line_reader.h"
#include "batch/run_batch.h"
#include "core/error.h"
#include "core/progress.h"
#include "formats/input_shape.h"

namespace {

struct BatchArgs {
  std::string model, input, output, shard = "1/1";
  std::optional<int64_t> errors_max;
  std::optional<int> threads;
  int tokenize_threads = 1;
  double checkpoint_seconds = 2.0;
  bool resume = false, strict = false, echo = false;
  sift::apps::ScoringFlags scoring;
};

// The longest --checkpoint-seconds: a day between checkpoints.
constexpr double kMaxCheckpointSeconds = 86400;

struct MergeArgs {
  std::string output;
  std::vector<std::string> shards;
};

// The input's first line that is not blank, decoded as the job reads it ("" when it has none).
std::string first_nonblank_line(const std::filesystem::path& input) {
  sift::batch::ResumableInput file(input);
  sift::batch::ResumableLineReader reader(file);
  for (sift::batch::ResumableLine line; reader.next(line);)
    if (!line.too_long && !sift::is_blank_line(line.text)) return line.text;
  return "";
}

// A job none of whose rows could be used fails (formats/input_shape.h); a shard given no line
// of its input does not.
void check_some_row_usable(const sift::batch::BatchOptions& options, const sift::batch::JobTotals& job) {
  if (job.errors < job.rows || (job.rows == 0 && options.shard.count > 1)) return;
  sift::check_some_row_usable("sift batch", job.rows, job.errors, first_nonblank_line(options.input),
                              options.output.string());
}

void run_batch_command(const BatchArgs& args) {
  for (const auto& [value, flag] : {std::pair{&args.model, "--model"}, {&args.input, "--input"}, {&args.output, "--output"}})
    if (value->empty()) sift::apps::usage_error("{} is required (or `sift batch merge` to join shard outputs)", flag);
  if (args.input == "-")
    sift::apps::usage_error("--input -: sift batch reads a file, not stdin: a job is resumable because it can read its "
                            "input again from the position its checkpoint records, which a pipe cannot give. Write the "
                            "rows to a file first, or score a stream with `sift score`, which reads stdin");
  sift::batch::BatchOptions options;
  options.model_dir = sift::apps::model_directory(args.model);
  options.input = args.input;
  options.output = args.output;
  options.scoring = args.scoring.scoring_options();
  options.shard = sift::Shard::parse(args.shard);
  options.resume = args.resume;
  options.line = args.echo ? sift::BatchLine::Echo : sift::BatchLine::PassThrough;
  options.weights = args.scoring.weight_storage();
  options.inference_threads = sift::apps::thread_count("--threads", args.threads);
  options.query_cache_bytes = args.scoring.query_cache_bytes();
  options.tokenize_threads = sift::apps::capped_threads("--tokenize-threads", args.tokenize_threads);
  options.errors_max = args.errors_max;
  options.checkpoint_seconds = args.checkpoint_seconds;
  if (args.scoring.engines().any())
    options.load_labeler = [engines = args.scoring.engines(), mode = options.scoring.mode](const std::filesystem::path& dir,
                                                                               const sift::LoadOptions& load) {
      sift::LabelerOnEngines on = sift::apps::load_labeler_on_engines(dir, load, engines, mode);
      return sift::batch::JobLabeler{std::move(on.labeler), on.arithmetic.exact
                                                                ? std::nullopt
                                                                : std::optional<std::string>(on.arithmetic.model)};
    };
  // A file-size limit (ulimit -f) is a write error naming the file, not a silent death.
  std::signal(SIGXFSZ, SIG_IGN);

  sift::ProgressReporter progress = sift::apps::progress_reporter("sift batch", "rows", std::nullopt);
  const sift::batch::BatchSummary summary = sift::batch::run_batch(options, progress);
  using sift::apps::counted;
  if (summary.already_complete)
    progress.finish(fmt::format("{} is complete ({}, {}): nothing to do", args.output, counted(summary.job.rows, "row"),
                                counted(summary.job.errors, "error")));
  else
    progress.finish(fmt::format("{} ({}), {} in {}, {:.0f} labels/s; {} holds {} ({}){}",
                                counted(summary.run.rows, "row"), counted(summary.run.errors, "error"),
                                counted(summary.run.labels, "label"), sift::format_duration(summary.seconds),
                                summary.seconds > 0 ? double(summary.run.labels) / summary.seconds : 0.0, args.output,
                                counted(summary.job.rows, "row"), counted(summary.job.errors, "error"),
                                summary.resumed ? " (resumed)" : ""));
  sift::apps::print_report(summary.to_json(args.output));
  check_some_row_usable(options, summary.job);
  sift::apps::check_strict(args.strict, summary.job.errors, summary.job.rows,
                           "their error lines are in " + args.output);
}

}  // namespace

SIFT_COMMAND(batch) {
  auto args = std::make_shared<BatchArgs>();
  auto merge = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "batch", "Label a JSON-lines file of rows offline: streaming, resumable after a crash (--resume), sharded");
  cmd->add_option("--model", args->model, "labeler directory (config.json, weights, tokenizer.json, sift.json) or Hugging Face Hub id org/name[@revision]");
  cmd->add_option("--input", args->input,
                  "JSON lines {\"id\", \"query\", \"items\", ...other fields passed through}; plain, gzip or zstd "
                  "(detected by content)");
  cmd->add_option("--output", args->output,
                  "JSON lines, one per input line in input order (zstd when the name ends in .zst); never "
                  "overwritten: an existing OUT needs --resume");
  cmd->add_option("--shard", args->shard, "K/N: label input lines K, K+N, K+2N, ... (from 1); merge with `sift batch merge`")
      ->capture_default_str();
  cmd->add_flag("--resume", args->resume,
                "continue the job in OUT from OUT.progress (refused if the labeler, threshold, mode, --weights, --truncate, "
                "--echo, shard or input differ); a complete job is left as it is");
  cmd->add_flag("--echo", args->echo,
                "write each row as read (query, items and its other fields), then its scores: sift score --echo's "
                "lines, rows again for eval, calibrate and train");
  cmd->add_option("--threads", args->threads,
                  "inference threads, >= 1 (default: the global --threads, else all cores; capped as --threads)")
      ->check(sift::apps::kThreadCount);
  cmd->add_option("--tokenize-threads", args->tokenize_threads,
                  "threads parsing and tokenizing rows ahead of inference, >= 1 (capped as --threads)")
      ->capture_default_str()
      ->check(sift::apps::kThreadCount);
  cmd->add_option("--errors-max", args->errors_max, "stop at the first bad row beyond N bad rows (default: never stop)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--checkpoint-seconds", args->checkpoint_seconds,
                  "longest time between checkpoints (OUT synced, OUT.progress replaced); 0: after every batch")
      ->capture_default_str()
      ->check(sift::apps::decimal_in(0, kMaxCheckpointSeconds));
  sift::apps::add_scoring_flags(cmd, sift::apps::Command::Batch, args->scoring);
  sift::apps::add_strict_flag(cmd, args->strict, "of the job failed (checked when the job is complete; its error line is in OUT)");

  CLI::App* merge_cmd = cmd->add_subcommand(
      "merge", "Join the outputs of `sift batch --shard K/N` (K = 1..N) into one output in input order");
  merge_cmd->add_option("--output", merge->output, "the merged output (zstd when the name ends in .zst)")->required();
  merge_cmd->add_option("shards", merge->shards, "the N shard outputs, in any order")->required();
  merge_cmd->callback([merge] {
    std::vector<std::filesystem::path> shards(merge->shards.begin(), merge->shards.end());
    sift::ProgressReporter progress = sift::apps::progress_reporter("sift batch merge", "rows", std::nullopt);
    const sift::batch::MergeSummary summary = sift::batch::merge_shards(shards, merge->output);
    progress.finish(fmt::format("{} shards, {} rows into {}", summary.shards, summary.rows, merge->output));
    sift::apps::print_report(
        nlohmann::ordered_json{{"output", merge->output}, {"shards", summary.shards}, {"rows", summary.rows}});
  });
  cmd->callback([args, merge_cmd] {
    if (!merge_cmd->parsed()) run_batch_command(*args);
  });
}
