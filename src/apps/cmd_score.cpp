// sift score: label (query, items) rows with a labeler directory (checkpoint + tokenizer.json
// + sift.json). JSON lines in, exactly one JSON line out per input line (scoring/score_io.h).
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include "apps/command.h"
#include "apps/weights_option.h"
#include "core/error.h"
#include "core/log.h"
#include "scoring/engine.h"
#include "workflows/score_stream.h"

SIFT_COMMAND(score) {
  struct Options {
    std::string model, mode = "mis", input, output, weights = "auto";
    std::optional<double> threshold;
    std::optional<int64_t> max_request_tokens, max_batch_tokens;
  };
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "score", "Score JSON-lines rows {\"id\", \"query\", \"items\"}: one output line per input line, in order");
  cmd->add_option("--model", options->model, "labeler directory: config.json, weights, tokenizer.json, sift.json")
      ->required();
  cmd->add_option("--mode", options->mode,
                  "mis (default: all items of a row in one packed request) | independent (one request per item, "
                  "no reuse) | prefix (query KV cached, one request per item) | generate (packed generation "
                  "baseline: hard 0/1 decisions parsed from a generated answer list)")
      ->check(CLI::IsMember({"mis", "independent", "prefix", "generate"}));
  cmd->add_option("--threshold", options->threshold, "label = score >= T (ties YES); default: sift.json's")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--max-request-tokens", options->max_request_tokens,
                  "most tokens of one request (query + its items); rows are split into the fewest requests that fit. "
                  "Default: min(max_position_embeddings, a 4 GiB activation budget / bytes per token)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-batch-tokens", options->max_batch_tokens,
                  "most tokens of one forward call: short rows are packed together up to this budget (a row's "
                  "requests never exceed it). Default: the --max-request-tokens default")
      ->check(CLI::PositiveNumber);
  sift::apps::add_weights_option(cmd, options->weights);
  cmd->add_option("--input", options->input, "JSON-lines input (default: stdin)")->check(CLI::ExistingFile);
  cmd->add_option("--output", options->output, "JSON-lines output (default: stdout)");
  cmd->callback([options] {
    sift::ScoringOptions scoring;
    scoring.mode = *sift::parse_scoring_mode(options->mode);
    scoring.threshold = options->threshold;
    scoring.max_request_tokens = options->max_request_tokens;
    scoring.max_batch_tokens = options->max_batch_tokens;

    std::unique_ptr<sift::ScoringEngine> labeler = sift::ScoringEngine::load(options->model, sift::apps::weight_storage_of(options->weights));
    labeler->limits(scoring);  // reject a bad limit before reading input

    std::ifstream input_file;
    if (!options->input.empty()) {
      input_file.open(options->input);
      if (!input_file) sift::fail("{}: cannot open the input", options->input);
    }
    std::ofstream output_file;
    if (!options->output.empty()) {
      output_file.open(options->output);
      if (!output_file) sift::fail("{}: cannot open the output for writing", options->output);
    }
    std::istream& in = options->input.empty() ? std::cin : input_file;
    std::ostream& out = options->output.empty() ? std::cout : output_file;

    bool reported = false;
    auto print_progress = [&reported](const sift::StreamStats& s) {
      fmt::print(stderr, "sift score: {} rows ({} errors), {:.1f} rows/s, {:.0f} labels/s\n", s.lines, s.errors,
                 s.lines / s.seconds, s.labels / s.seconds);
      reported = true;
    };
    const sift::StreamStats stats = sift::score_stream(*labeler, in, out, scoring, print_progress, std::chrono::seconds(5));
    if (reported || stats.errors > 0) print_progress(stats);
    spdlog::debug("sift score: {} labels scored in {:.3f} s after the model load", stats.labels, stats.seconds);
  });
}
