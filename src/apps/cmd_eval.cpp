// sift eval: a labeler's quality on labeled rows (paper §6.2): agreement with the reference
// labels, precision / recall / F1, agreement with the clean truth where the rows carry it,
// and, over K shuffles of each row's candidates, the order-inconsistency rate and the agreement
// of the shuffled labels (what a labeler reaches without the candidates' order). One JSON
// object on stdout, readable lines on stderr. Math: workflows/evaluation.h.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "apps/cli.h"
#include "apps/model_option.h"
#include "apps/command.h"
#include "apps/engine_option.h"
#include "apps/max_line_bytes_option.h"
#include "apps/scoring_flags.h"
#include "core/error.h"
#include "sift/labeler.h"
#include "workflows/evaluation_run.h"
#include "workflows/labeled_rows.h"
#include "workflows/pr_curve_files.h"
#include "workflows/reliability_files.h"

namespace {

struct EvalArgs {
  std::string model, input, out_dir;
  int64_t shuffles = 3;
  uint64_t seed = 0;
  int64_t max_line_bytes = sift::kDefaultMaxLineBytes;
  bool strict = false;
  sift::apps::ScoringFlags scoring;
};

void print_readable(const sift::EvalReport& r, int64_t rows_left_out) {
  const sift::LabelCounts& c = r.reference;
  const std::string threshold =
      r.mode == sift::ScoringMode::Generate ? std::string("hard decisions") : fmt::format("threshold {:.6g}", r.threshold);
  fmt::print(stderr, "mode {}, {}: {}, {}\n", sift::scoring_mode_name(r.mode), threshold,
             sift::apps::counted(r.n_rows, "row"), sift::apps::counted(c.n_items, "item"));
  fmt::print(stderr, "agreement: {:.4f}   precision {:.4f}  recall {:.4f}  F1 {:.4f}\n", c.agreement(),
             c.precision(), c.recall(), c.f1());
  if (r.truth) fmt::print(stderr, "truth agreement: {:.4f} ({} items)\n", r.truth->agreement(), r.truth->n_items);
  if (r.mode == sift::ScoringMode::Generate) fmt::print(stderr, "unparsed: {} items\n", c.n_unparsed);
  if (r.raw_reliability) {
    fmt::print(stderr, "calibration: score ECE {:.4f}, Brier {:.4f}", r.raw_reliability->ece, r.raw_reliability->brier);
    if (r.calibrated_reliability)
      fmt::print(stderr, "; probability ECE {:.4f}, Brier {:.4f}", r.calibrated_reliability->ece,
                 r.calibrated_reliability->brier);
    fmt::print(stderr, " ({} equal-width bins)\n", sift::kReliabilityBins);
  }
  if (r.shuffles > 0)
    fmt::print(stderr, "order inconsistency: {:.6f} ({} of {} labels changed over {} shuffles per row)\n",
               r.order.rate(), r.order.n_changed, r.order.n_compared, r.shuffles);
  if (r.shuffles > 0) {
    fmt::print(stderr, "agreement with the candidates shuffled: {:.4f}", r.shuffled_reference.agreement());
    if (r.shuffled_truth) fmt::print(stderr, "   truth agreement {:.4f}", r.shuffled_truth->agreement());
    fmt::print(stderr, " ({} labels over {} shuffles per row)\n", r.shuffled_reference.n_items, r.shuffles);
  }
  fmt::print(stderr, "{:.1f} labels/s ({} in {:.2f} s); {} left out\n", r.labels_per_second(),
             sift::apps::counted(r.n_labels, "label"), r.seconds, sift::apps::counted(rows_left_out, "row"));
}

void run_eval(const EvalArgs& args) {
  sift::EvalOptions eval;
  eval.scoring = args.scoring.scoring_options();
  eval.shuffles = args.shuffles;
  eval.seed = args.seed;

  if (!args.out_dir.empty()) {  // fail before the long part
    if (eval.scoring.mode == sift::ScoringMode::Generate)
      sift::apps::usage_error("--out-dir: mode generate makes hard decisions, no scores to draw a reliability diagram of");
    sift::require_gnuplot();
  }
  const sift::Labeler labeler =
      sift::apps::load_labeler(args.model, args.scoring.load_options(), args.scoring.engines(), eval.scoring.mode);
  labeler.resolve(eval.scoring);  // reject a bad limit before reading input
  const sift::LabeledRows input = sift::read_labeled_rows(args.input, args.max_line_bytes);
  const std::string input_name = args.input.empty() || args.input == "-" ? "stdin" : args.input;
  for (const sift::RowError& e : input.errors)
    sift::apps::warn("sift eval", fmt::format("{}:{}: {} (row left out)", input_name, e.line, e.message));

  sift::ProgressReporter progress = sift::apps::progress_reporter(
      "sift eval", "rows", sift::evaluation_passes_rows(input.rows.size(), eval));
  const sift::EvalReport report = sift::evaluate(
      labeler, input.rows, eval, [&progress](int64_t done, std::string_view pass) { progress.update(done, pass); });
  for (const sift::RowError& e : report.errors)
    progress.message(fmt::format("sift eval: warning: {}:{}: {} (row left out)", input_name, e.line, e.message));
  const int64_t errors = static_cast<int64_t>(input.errors.size() + report.errors.size());
  progress.finish(fmt::format("{} evaluated, {} left out", sift::apps::counted(report.n_rows, "row"),
                              sift::apps::counted(errors, "row")));
  sift::apps::check_strict(args.strict, errors, errors + report.n_rows, "left out, with the warnings above");
  nlohmann::ordered_json out = sift::eval_report_to_json(report, static_cast<int64_t>(input.errors.size()));
  if (!args.out_dir.empty() && report.raw_reliability) {
    sift::write_reliability_files(args.out_dir, *report.raw_reliability, report.calibrated_reliability,
                                  fmt::format("{}: {} on {}", std::filesystem::path(args.model).filename().string(),
                                              labeler.version(), std::filesystem::path(input_name).filename().string()));
    out["reliability"] = (std::filesystem::path(args.out_dir) / "reliability.tsv").string();
    out["plot"] = (std::filesystem::path(args.out_dir) / "reliability.png").string();
  }
  sift::apps::print_report(out);
  print_readable(report, errors);
}

}  // namespace

SIFT_COMMAND(eval) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand(
      "eval", "Evaluate a labeler on labeled rows: agreement, precision, recall, F1, truth agreement, "
              "order inconsistency, labels/s");
  cmd->add_option("--model", args->model, "labeler directory or Hugging Face Hub id org/name[@revision]")->required();
  cmd->add_option("--input", args->input,
                  "JSON-lines rows {\"query\", \"items\", \"labels\": [0/1...], optional \"truth\": [0/1...]} "
                  "(default, or -: stdin)");
  cmd->add_option("--shuffles", args->shuffles, "K: each row's candidates re-scored in K random orders: order inconsistency and the shuffled "
                  "labels' agreement (0: skip)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "seed of the shuffles")->capture_default_str();
  sift::apps::add_scoring_flags(cmd, sift::apps::Command::Eval, args->scoring);
  cmd->add_option("--out-dir", args->out_dir,
                  "also write the reliability diagram there: reliability.tsv, reliability.png (gnuplot) and "
                  "reliability.gp, of the scores and, with a calibration map, the probabilities");
  sift::apps::add_max_line_bytes_option(cmd, args->max_line_bytes, "a longer line is left out, with a warning naming it");
  sift::apps::add_strict_flag(cmd, args->strict, "was left out");
  cmd->callback([args] {
    args->model = sift::apps::model_directory(args->model);
    run_eval(*args);
  });
}
