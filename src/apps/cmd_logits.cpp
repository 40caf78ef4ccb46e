// sift logits: run a checkpoint on token ids and print logits, one JSON line per position.
// The tool for checking that a checkpoint loads and computes right.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/model_option.h"
#include "apps/command.h"
#include "apps/scoring_flags.h"
#include "core/error.h"
#include "model/model.h"

namespace {

std::vector<int32_t> parse_id_list(const std::string& text, const char* option) {
  std::vector<int32_t> ids;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(begin, end - begin);
    size_t used = 0;
    long value = 0;
    try {
      value = std::stol(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || value < 0 || value > INT32_MAX)
      sift::apps::usage_error("{}: \"{}\" is not a non-negative integer (expected a comma-separated list like 1,2,3)", option, item);
    ids.push_back(static_cast<int32_t>(value));
    begin = end + 1;
  }
  return ids;
}

}  // namespace

SIFT_COMMAND(logits) {
  struct Options {
    std::string model, ids, vocab, positions = "last";
    sift::apps::ScoringFlags scoring;  // --weights
  };
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("logits", "Print logits of a checkpoint for token ids (one JSON line per position)");
  cmd->add_option("--model", options->model, "Hugging Face model directory or Hugging Face Hub id org/name[@revision]")->required();
  cmd->add_option("--ids", options->ids, "token ids, comma-separated (a causal prompt at positions 0..T-1)")->required();
  cmd->add_option("--vocab", options->vocab, "only these vocabulary rows, in this order (default: all)");
  cmd->add_option("--positions", options->positions, "last | all")->check(CLI::IsMember({"last", "all"}));
  sift::apps::add_scoring_flags(cmd, sift::apps::Command::Logits, options->scoring);
  cmd->callback([options] {
    const std::vector<int32_t> ids = parse_id_list(options->ids, "--ids");
    const std::vector<int32_t> vocab = options->vocab.empty() ? std::vector<int32_t>{} : parse_id_list(options->vocab, "--vocab");
    auto model = sift::Model::load(sift::apps::model_directory(options->model), options->scoring.weight_storage());
    const auto T = static_cast<int32_t>(ids.size());
    std::vector<int32_t> positions(T);
    std::iota(positions.begin(), positions.end(), 0);
    std::vector<int32_t> rows;
    if (options->positions == "all") rows = positions;
    else rows = {T - 1};
    const sift::Segment causal{.start = 0, .len = T};  // a plain causal prompt: no context
    const sift::ForwardRequest request{ids, positions, {&causal, 1}, rows, vocab};
    const sift::ForwardResult result = model->forward(request);
    for (int64_t r = 0; r < result.n_rows; ++r) {
      nlohmann::json line = {{"pos", rows[r]}, {"logits", result.row(r)}};
      std::fputs(sift::apps::output_rows(line.dump() + "\n").c_str(), stdout);
    }
  });
}
