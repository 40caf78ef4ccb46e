// sift cost: prefill tokens per label under mis, packed generation and independent scoring
// for the rows of a JSON-lines file, and the reduction factor (paper §4.3). Needs only the
// labeler's tokenizer.json, sift.json and config.json: no weights are loaded.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include "apps/command.h"
#include "core/error.h"
#include "model/config.h"
#include "workflows/cost_report.h"
#include "scoring/request_sizing.h"
#include "scoring/score_io.h"

SIFT_COMMAND(cost) {
  struct Options {
    std::string model, input;
    std::optional<int64_t> max_request_tokens;
  };
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "cost", "Prefill tokens per label under mis, packed generation and independent scoring (paper §4.3)");
  cmd->add_option("--model", options->model, "labeler directory (tokenizer.json, sift.json, config.json)")
      ->required();
  cmd->add_option("--input", options->input, "JSON-lines rows, as for sift score")->required()->check(CLI::ExistingFile);
  cmd->add_option("--max-request-tokens", options->max_request_tokens, "request limit, as for sift score")
      ->check(CLI::PositiveNumber);
  cmd->callback([options] {
    const std::filesystem::path dir = options->model;
    const sift::ScoringArtifact artifact = sift::load_scoring_artifact(dir / "sift.json");
    const auto tokenizer = sift::Tokenizer::load(dir / "tokenizer.json");
    const sift::ModelConfig config = sift::load_model_config(dir / "config.json");
    const sift::PromptEncoder prompts(*tokenizer, artifact);
    const int64_t limit = options->max_request_tokens.value_or(sift::default_max_request_tokens(config));

    std::ifstream in(options->input);
    if (!in) sift::fail("{}: cannot open the input", options->input);
    sift::CostTotals totals;
    std::string line;
    for (int64_t line_number = 1; std::getline(in, line); ++line_number) {
      try {
        const sift::ScoringRow row = sift::parse_scoring_row(line);
        totals.add(sift::measure_row_cost(prompts, artifact, row.query, row.items, limit));
      } catch (const sift::Error& e) {
        std::fprintf(stderr, "sift cost: %s line %lld: %s (row left out)\n", options->input.c_str(),
                     static_cast<long long>(line_number), e.what());
        ++totals.errors;
      }
    }
    std::printf("%s\n", sift::cost_report_json(totals).dump(2).c_str());
  });
}
