// sift cost: prefill tokens per label under mis, packed generation and independent scoring
// for the rows of a JSON-lines file, and the reduction factor (paper §4.3). Needs only the
// labeler's tokenizer.json, sift.json and config.json: no weights are loaded.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <exception>
#include <optional>
#include <string>

#include "apps/cli.h"
#include "apps/model_option.h"
#include "apps/command.h"
#include "apps/max_line_bytes_option.h"
#include "apps/scoring_flags.h"
#include "core/error.h"
#include "io/input_file.h"
#include "io/line_reader.h"
#include "model/config.h"
#include "scoring/request_sizing.h"
#include "formats/score_io.h"
#include "workflows/cost_report.h"

namespace {

struct CostArgs {
  std::string model, input;
  sift::apps::ScoringFlags scoring;  // --max-request-tokens
  int64_t max_line_bytes = sift::kDefaultMaxLineBytes;
  bool strict = false;
};

void run_cost(const CostArgs& args) {
  const std::filesystem::path dir = args.model;
  const sift::ScoringArtifact artifact = sift::load_scoring_artifact(dir / "sift.json");
  const auto tokenizer = sift::Tokenizer::load(dir / "tokenizer.json");
  const sift::ModelConfig config = sift::load_model_config(dir / "config.json");
  const sift::PromptEncoder prompts(*tokenizer, artifact);
  const int64_t limit = args.scoring.max_request_tokens.value_or(sift::default_max_request_tokens(config));

  sift::InputFile input(args.input);
  sift::LineReader reader(input.stream(), args.max_line_bytes);
  sift::CostTotals totals;
  for (sift::InputLine line; reader.next(line);) {
    try {  // whatever goes wrong with a row, it is left out and the rest is counted
      if (line.too_long) sift::fail("{}", sift::too_long_line_message(line, args.max_line_bytes));
      const sift::ScoringRow row = sift::parse_scoring_row(line.text);
      totals.add(sift::measure_row_cost(prompts, artifact, row.query, row.items, limit));
    } catch (const std::exception& e) {
      sift::apps::warn("sift cost", fmt::format("{}:{}: {} (row left out)", input.name(), line.number, e.what()));
      ++totals.errors;
    }
  }
  if (!sift::apps::global_options().quiet)
    fmt::print(stderr, "sift cost: {} priced, {} left out\n", sift::apps::counted(totals.rows, "row"),
               sift::apps::counted(totals.errors, "row"));
  sift::apps::check_strict(args.strict, totals.errors, totals.rows + totals.errors, "left out, with the warnings above");
  sift::apps::print_report(sift::cost_report_json(totals));
}

}  // namespace

SIFT_COMMAND(cost) {
  auto args = std::make_shared<CostArgs>();
  CLI::App* cmd = app.add_subcommand(
      "cost", "Prefill tokens per label under mis, packed generation and independent scoring (paper §4.3)");
  cmd->add_option("--model", args->model, "labeler directory (tokenizer.json, sift.json, config.json) or Hugging Face Hub id org/name[@revision]")->required();
  cmd->add_option("--input", args->input, "JSON-lines rows, as for sift score (default, or -: stdin)");
  sift::apps::add_scoring_flags(cmd, sift::apps::Command::Cost, args->scoring);
  sift::apps::add_max_line_bytes_option(cmd, args->max_line_bytes, "a longer line is left out, with a warning naming it");
  sift::apps::add_strict_flag(cmd, args->strict, "was left out");
  cmd->callback([args] {
    args->model = sift::apps::model_directory(args->model);
    run_cost(*args);
  });
}
