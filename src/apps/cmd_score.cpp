// sift score: label (query, items) rows with a labeler directory (checkpoint + tokenizer.json
// + sift.json). JSON lines in, exactly one JSON line out per input line (formats/score_io.h).
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/model_option.h"
#include "apps/command.h"
#include "apps/engine_option.h"
#include "apps/max_line_bytes_option.h"
#include "apps/scoring_flags.h"
#include "core/error.h"
#include "core/log.h"
#include "formats/input_shape.h"
#include "io/atomic_file.h"
#include "io/input_file.h"
#include "io/line_output.h"
#include "sift/labeler.h"
#include "workflows/score_stream.h"

namespace {

// More unparsed answers than this share of the items in mode generate is worth a warning.
constexpr double kUnparsedWarningShare = 0.10;

// CPU time of the process so far, all threads (user + system): what a run costs on a shared machine.
double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

struct ScoreArgs {
  std::string model, input, output, dump_generations;
  int64_t max_line_bytes = sift::kDefaultMaxLineBytes;
  bool strict = false, echo = false;
  sift::apps::ScoringFlags scoring;
};

// {"line", "id", "generations": [what the model wrote, per request], "unparsed": [items]}
std::string generations_line(int64_t line_number, const sift::ScoringRow& row, const sift::RowResult& result) {
  nlohmann::ordered_json j;
  j["line"] = line_number;
  j["id"] = row.id;
  const sift::Generation generation = result.generation.value_or(sift::Generation{});
  j["generations"] = generation.texts;
  j["unparsed"] = generation.unparsed;
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

void warn_if_many_unparsed(const sift::StreamStats& stats) {
  if (stats.labels == 0 || double(stats.unparsed) <= kUnparsedWarningShare * double(stats.labels)) return;
  sift::apps::warn("sift score",
                   fmt::format("{:.0f}% of the answers ({} of {} items) could not be parsed: the generate prompt may "
                               "not suit this model; --dump-generations FILE writes what it wrote",
                               100.0 * double(stats.unparsed) / double(stats.labels), stats.unparsed, stats.labels));
}

void run_score(const ScoreArgs& args) {
  const sift::ScoringOptions scoring = args.scoring.scoring_options();
  if (!args.dump_generations.empty() && scoring.mode != sift::ScoringMode::Generate)
    sift::apps::usage_error("--dump-generations: only mode generate generates text (add --mode generate)");
  // Two outputs of one run in one regular file would replace each other; a device takes both.
  if (!args.dump_generations.empty() && args.dump_generations == args.output &&
      sift::output_kind(args.output) != sift::OutputKind::stream)
    sift::apps::usage_error("--dump-generations and --output name the same file");

  // Everything that can fail before the run does, before any output is opened.
  sift::InputFile input(args.input);
  std::vector<sift::NamedInput> inputs = sift::model_directory_inputs(args.model);
  inputs.push_back(input.as_input());
  const sift::Labeler labeler =
      sift::apps::load_labeler(args.model, args.scoring.load_options(), args.scoring.engines(), scoring.mode);
  labeler.resolve(scoring);  // a bad limit fails here, not on every row
  sift::LineReader reader(input.stream(), args.max_line_bytes);
  sift::LineOutput output(args.output, inputs);
  std::unique_ptr<sift::LineOutput> generations;
  if (!args.dump_generations.empty()) generations = std::make_unique<sift::LineOutput>(args.dump_generations, inputs);

  sift::ProgressReporter progress = sift::apps::progress_reporter("sift score", "rows", input.count_lines());
  sift::StreamHooks hooks;
  hooks.progress = [&progress](const sift::StreamStats& s) {
    progress.update(s.lines, fmt::format("{} errors, {:.0f} labels/s", s.errors, s.labels / std::max(s.seconds, 1e-9)));
  };
  std::set<std::string> dropped;  // --echo: input fields that have no name in the output, said once each
  hooks.scored_row = [&](int64_t line, const sift::ScoringRow& row, const sift::RowResult& result) {
    if (generations) generations->write(generations_line(line, row, result));
    if (args.echo)
      for (const std::string& field : sift::shadowed_passthrough_fields(row))
        if (dropped.insert(field).second)
          sift::apps::warn("sift score", fmt::format("--echo: input field \"{}\" is left out: the output has \"{}\" "
                                                     "and \"input_{}\" already",
                                                     field, field, field));
  };
  const double cpu_before = process_cpu_seconds();
  const sift::StreamStats stats =
      sift::score_stream(
          labeler, reader, [&output](std::string_view lines) { output.write(sift::apps::output_rows(lines)); }, scoring,
          hooks, args.echo);
  output.commit();
  if (generations) generations->commit();
  spdlog::debug("sift score: {} labels scored in {:.3f} s ({:.3f} CPU-s of all threads) after the model load; {} "
                "prompt tokens, {} of them reused from the query-KV cache",
                stats.labels, stats.seconds, process_cpu_seconds() - cpu_before, stats.prefill_tokens,
                stats.cached_tokens);
  progress.finish(fmt::format("{} ({}), {} in {:.1f} s, {:.0f} labels/s{}", sift::apps::counted(stats.lines, "row"),
                              sift::apps::counted(stats.errors, "error"), sift::apps::counted(stats.labels, "label"),
                              stats.seconds, stats.labels / std::max(stats.seconds, 1e-9),
                              args.output.empty() ? "" : " -> " + args.output));
  if (scoring.mode == sift::ScoringMode::Generate) warn_if_many_unparsed(stats);
  sift::check_some_row_usable("sift score", stats.lines, stats.errors, stats.first_line, output.name());
  sift::apps::check_strict(args.strict, stats.errors, stats.lines, "their error lines are in " + output.name());
}

}  // namespace

SIFT_COMMAND(score) {
  auto args = std::make_shared<ScoreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "score", "Score JSON-lines rows {\"id\", \"query\", \"items\"}: one output line per input line, in order");
  cmd->add_option("--model", args->model, "labeler directory (config.json, weights, tokenizer.json, sift.json) or Hugging Face Hub id org/name[@revision]")
      ->required();
  sift::apps::add_scoring_flags(cmd, sift::apps::Command::Score, args->scoring);
  cmd->add_option("--input", args->input, "JSON-lines input (default, or -: stdin)");
  cmd->add_option("--output", args->output,
                  "JSON-lines output, replaced when the run completes (default, or -: stdout)");
  sift::apps::add_max_line_bytes_option(cmd, args->max_line_bytes, "a longer line is that row's error line, not parsed");
  cmd->add_flag("--echo", args->echo,
                "each output line carries its row: id, query, items as given and the row's other fields (one named "
                "like an output field as input_<name>: \"labels\" -> \"input_labels\"), then the scores and "
                "labels; a row again, for review or as labeled rows for eval, calibrate and train");
  sift::apps::add_strict_flag(cmd, args->strict, "failed (its error line is in the output)");
  cmd->add_option("--dump-generations", args->dump_generations,
                  "mode generate: write what the model generated for each row to this JSON-lines file");
  cmd->callback([args] {
    args->model = sift::apps::model_directory(args->model);
    run_score(*args);
  });
}
