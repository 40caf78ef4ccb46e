// sift prompt: the prompts a labeler builds for rows, as text and as token ids, without
// running the model: to debug a sift.json (what does the model see? are the answer tokens
// right?) and to check the ids against another implementation. JSON lines in (the `sift
// score` input), one line out per row:
//   {"line", "id", "query_text", "query_ids", "item_texts", "item_ids", "yes", "no"}
// where item i's prompt is query_ids ++ item_ids[i] (scoring/prompt.h), or
// {"line", "error"} for a row that cannot be read or encoded.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/model_option.h"
#include "apps/command.h"
#include "apps/max_line_bytes_option.h"
#include "core/error.h"
#include "io/input_file.h"
#include "io/line_output.h"
#include "io/line_reader.h"
#include "scoring/artifact.h"
#include "scoring/prompt.h"
#include "formats/score_io.h"
#include "tokenizer/tokenizer.h"

namespace {

struct PromptArgs {
  std::string model, input, output;
  int64_t max_line_bytes = sift::kDefaultMaxLineBytes;
  bool strict = false;
};

nlohmann::ordered_json prompt_line(const sift::PromptEncoder& encoder, const sift::ScoringArtifact& artifact,
                                   const sift::AnswerTokenIds& answer, const sift::ScoringRow& row) {
  const sift::TemplateParts query_parts = sift::split_template(artifact.query_template, sift::kQueryPlaceholder);
  const sift::TemplateParts item_parts = sift::split_template(artifact.item_template, sift::kItemPlaceholder);
  nlohmann::ordered_json j;
  j["id"] = row.id;
  j["query_text"] = sift::render_part(query_parts, row.query).text;
  j["query_ids"] = encoder.query_tokens(row.query);
  nlohmann::ordered_json texts = nlohmann::ordered_json::array();
  for (const std::string& item : row.items) texts.push_back(sift::render_part(item_parts, item).text);
  j["item_texts"] = std::move(texts);
  j["item_ids"] = encoder.item_tokens_batch(row.items);
  j["yes"] = answer.yes;
  j["no"] = answer.no;
  return j;
}

void run_prompt(const PromptArgs& args) {
  const std::filesystem::path dir = args.model;
  const sift::ScoringArtifact artifact = sift::load_scoring_artifact(dir / "sift.json");
  const std::unique_ptr<sift::Tokenizer> tokenizer = sift::Tokenizer::load(dir / "tokenizer.json");
  const sift::PromptEncoder encoder(*tokenizer, artifact);
  const sift::AnswerTokenIds answer = sift::resolve_answer_tokens(*tokenizer, artifact, (dir / "sift.json").string());

  sift::InputFile input(args.input);
  std::vector<sift::NamedInput> inputs = sift::model_directory_inputs(dir);
  inputs.push_back(input.as_input());
  sift::LineReader reader(input.stream(), args.max_line_bytes);
  sift::LineOutput output(args.output, inputs);
  int64_t rows = 0, errors = 0;
  for (sift::InputLine line; reader.next(line); ++rows) {
    nlohmann::ordered_json out;
    try {
      if (line.too_long) sift::fail("{}", sift::too_long_line_message(line, args.max_line_bytes));
      out = prompt_line(encoder, artifact, answer, sift::parse_scoring_row(line.text));
    } catch (const std::exception& e) {
      out = {{"error", e.what()}};
      ++errors;
    }
    nlohmann::ordered_json with_line = {{"line", line.number}};
    with_line.update(out);
    output.write(sift::apps::output_rows(sift::output_line_text(with_line) + "\n"));
  }
  output.commit();
  if (!sift::apps::global_options().quiet)
    fmt::print(stderr, "sift prompt: {} ({})\n", sift::apps::counted(rows, "row"), sift::apps::counted(errors, "error"));
  sift::apps::check_strict(args.strict, errors, rows, "their error lines are in " + output.name());
}

}  // namespace

SIFT_COMMAND(prompt) {
  auto args = std::make_shared<PromptArgs>();
  CLI::App* cmd = app.add_subcommand(
      "prompt", "Show the prompts a labeler builds for rows, as text and token ids, without running the model");
  cmd->add_option("--model", args->model, "labeler directory (tokenizer.json, sift.json) or Hugging Face Hub id org/name[@revision]")->required();
  cmd->add_option("--input", args->input, "JSON-lines rows, as for sift score (default, or -: stdin)");
  cmd->add_option("--output", args->output, "JSON-lines output (default, or -: stdout)");
  sift::apps::add_max_line_bytes_option(cmd, args->max_line_bytes, "a longer line is that row's error line, not parsed");
  sift::apps::add_strict_flag(cmd, args->strict, "failed (its error line is in the output)");
  cmd->callback([args] {
    args->model = sift::apps::model_directory(args->model);
    run_prompt(*args);
  });
}
