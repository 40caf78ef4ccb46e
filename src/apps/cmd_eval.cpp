// sift eval: a labeler's quality on labeled rows (paper §6.2): agreement with the reference
// labels, precision / recall / F1, agreement with the clean truth where the rows carry it,
// and the order-inconsistency rate over K shuffles of each row's candidates. One JSON
// object on stdout, readable lines on stderr. Math: workflows/evaluation.h.
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "apps/command.h"
#include "core/error.h"
#include "workflows/evaluation_run.h"
#include "workflows/labeled_rows.h"
#include "scoring/engine.h"

namespace {

void print_progress(const char* what, size_t done, size_t total) {
  if (done == total || done % 100 == 0) fmt::print(stderr, "\rsift eval: {} {}/{} rows", what, done, total);
  if (done == total) fmt::print(stderr, "\n");
}

void print_readable(const sift::EvalReport& r) {
  const sift::LabelCounts& c = r.reference;
  const std::string threshold =
      r.mode == sift::ScoringMode::Generate ? std::string("hard decisions") : fmt::format("threshold {:.6g}", r.threshold);
  fmt::print(stderr, "mode {}, {}: {} rows, {} items\n", sift::scoring_mode_name(r.mode), threshold, r.n_rows,
             c.n_items);
  fmt::print(stderr, "agreement: {:.4f}   precision {:.4f}  recall {:.4f}  F1 {:.4f}\n", c.agreement(),
             c.precision(), c.recall(), c.f1());
  if (r.truth) fmt::print(stderr, "truth agreement: {:.4f} ({} items)\n", r.truth->agreement(), r.truth->n_items);
  if (r.mode == sift::ScoringMode::Generate) fmt::print(stderr, "unparsed: {} items\n", c.n_unparsed);
  if (r.shuffles > 0)
    fmt::print(stderr, "order inconsistency: {:.6f} ({} of {} labels changed over {} shuffles per row)\n",
               r.order.rate(), r.order.n_changed, r.order.n_compared, r.shuffles);
  fmt::print(stderr, "{:.1f} labels/s ({} labels in {:.2f} s)\n", r.labels_per_second(), r.n_labels, r.seconds);
}

}  // namespace

SIFT_COMMAND(eval) {
  struct Options {
    std::string model, input, mode = "mis";
    int64_t shuffles = 3;
    uint64_t seed = 0;
    std::optional<double> threshold;
    std::optional<int64_t> max_request_tokens;
  };
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "eval", "Evaluate a labeler on labeled rows: agreement, precision, recall, F1, truth agreement, "
              "order inconsistency, labels/s");
  cmd->add_option("--model", options->model, "labeler directory")->required();
  cmd->add_option("--input", options->input,
                  "JSON-lines rows {\"query\", \"items\", \"labels\": [0/1...], optional \"truth\": [0/1...]}")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--mode", options->mode, "mis | independent | prefix | generate")
      ->check(CLI::IsMember({"mis", "independent", "prefix", "generate"}))
      ->capture_default_str();
  cmd->add_option("--shuffles", options->shuffles, "K: each row's candidates re-scored in K random orders (0: skip)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--seed", options->seed, "seed of the shuffles")->capture_default_str();
  cmd->add_option("--threshold", options->threshold, "label = score >= T (ties YES); default: sift.json's")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--max-request-tokens", options->max_request_tokens, "as in `sift score`")
      ->check(CLI::PositiveNumber);
  cmd->callback([options] {
    sift::EvalOptions eval;
    eval.scoring.mode = *sift::parse_scoring_mode(options->mode);
    eval.scoring.threshold = options->threshold;
    eval.scoring.max_request_tokens = options->max_request_tokens;
    eval.shuffles = options->shuffles;
    eval.seed = options->seed;

    std::unique_ptr<sift::ScoringEngine> labeler = sift::ScoringEngine::load(options->model);
    labeler->limits(eval.scoring);  // reject a bad limit before reading input
    const std::vector<sift::LabeledRow> rows = sift::read_labeled_rows(options->input);
    const sift::EvalReport report = sift::evaluate(*labeler, rows, eval, print_progress);
    std::cout << sift::eval_report_to_json(report).dump() << std::endl;
    print_readable(report);
  });
}
