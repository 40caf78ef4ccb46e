// sift calibrate: choose a labeler's threshold on labeled validation rows (paper §3.3),
// write it into sift.json as a new version, and leave the precision-recall curve beside
// it (calibration/pr_curve.tsv and .png). Math: workflows/calibration.h.
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "apps/command.h"
#include "core/error.h"
#include "workflows/artifact_update.h"
#include "workflows/calibration.h"
#include "workflows/evaluation_run.h"
#include "workflows/labeled_rows.h"
#include "scoring/engine.h"
#include "workflows/pr_curve_files.h"

namespace {

void print_progress(const char* what, size_t done, size_t total) {
  if (done == total || done % 200 == 0) fmt::print(stderr, "\rsift calibrate: {} {}/{} rows", what, done, total);
  if (done == total) fmt::print(stderr, "\n");
}

}  // namespace

SIFT_COMMAND(calibrate) {
  struct Options {
    std::string model, input, target = "f1", mode = "mis", out_dir;
    std::optional<int64_t> max_request_tokens;
  };
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Choose the threshold on labeled validation rows; write it into sift.json as a new version, plus the "
      "precision-recall curve (calibration/pr_curve.tsv, .png)");
  cmd->add_option("--model", options->model, "labeler directory (its sift.json is updated)")->required();
  cmd->add_option("--input", options->input, "JSON-lines rows {\"query\", \"items\", \"labels\": [0/1...]}")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--target", options->target,
                  "f1 (highest F1) | precision=P (most recall with precision >= P) | recall=R (most precision "
                  "with recall >= R)")
      ->capture_default_str();
  cmd->add_option("--mode", options->mode, "mis | independent | prefix (all give the same scores)")
      ->check(CLI::IsMember({"mis", "independent", "prefix", "generate"}))
      ->capture_default_str();
  cmd->add_option("--out-dir", options->out_dir, "where the curve goes (default: MODEL/calibration)");
  cmd->add_option("--max-request-tokens", options->max_request_tokens, "as in `sift score`")
      ->check(CLI::PositiveNumber);
  cmd->callback([options] {
    const sift::CalibrationTarget target = sift::parse_calibration_target(options->target);
    sift::ScoringOptions scoring;
    scoring.mode = *sift::parse_scoring_mode(options->mode);
    scoring.max_request_tokens = options->max_request_tokens;
    if (scoring.mode == sift::ScoringMode::Generate)
      sift::fail("--mode generate gives hard 0/1 decisions, not scores: there is no threshold to calibrate");
    sift::require_gnuplot();  // fail before the long part

    const std::filesystem::path model_dir = options->model;
    std::unique_ptr<sift::ScoringEngine> labeler = sift::ScoringEngine::load(model_dir);
    const std::vector<sift::LabeledRow> rows = sift::read_labeled_rows(options->input);
    const sift::ScoredRows scored = sift::score_labeled_rows(*labeler, rows, scoring, print_progress);

    std::vector<double> scores;
    std::vector<bool> reference;
    for (size_t r = 0; r < rows.size(); ++r) {
      for (size_t i = 0; i < rows[r].labels.size(); ++i) {
        scores.push_back(*scored.results[r].scores[i]);
        reference.push_back(rows[r].labels[i]);
      }
    }
    if (scores.empty()) sift::fail("{}: the rows hold no items to calibrate on", options->input);
    const sift::PrCurve curve = sift::precision_recall_curve(scores, reference);
    const sift::PrPoint chosen = sift::choose_operating_point(curve, target);

    const std::filesystem::path out_dir =
        options->out_dir.empty() ? model_dir / "calibration" : std::filesystem::path(options->out_dir);
    std::filesystem::create_directories(out_dir);
    const std::filesystem::path tsv = out_dir / "pr_curve.tsv", png = out_dir / "pr_curve.png";
    sift::write_pr_curve_tsv(tsv, curve);
    sift::plot_pr_curve(tsv, png, curve, chosen,
                        fmt::format("{}: precision-recall on {} (target {})", model_dir.filename().string(),
                                    std::filesystem::path(options->input).filename().string(), target.name()));

    nlohmann::ordered_json record = {{"target", target.name()},
                                     {"input", options->input},
                                     {"mode", options->mode},
                                     {"n_items", curve.n_items},
                                     {"n_positive", curve.n_positive},
                                     {"precision", chosen.precision},
                                     {"recall", chosen.recall},
                                     {"f1", chosen.f1}};
    const sift::ArtifactUpdate update =
        sift::write_calibrated_artifact(model_dir / "sift.json", chosen.threshold, target.name(), record);

    nlohmann::ordered_json summary = {{"threshold", chosen.threshold},
                                      {"precision", chosen.precision},
                                      {"recall", chosen.recall},
                                      {"f1", chosen.f1},
                                      {"n_items", curve.n_items},
                                      {"n_positive", curve.n_positive},
                                      {"old_threshold", update.old_threshold},
                                      {"target", target.name()},
                                      {"version", update.new_version},
                                      {"old_version", update.old_version},
                                      {"curve", tsv.string()},
                                      {"plot", png.string()}};
    std::cout << summary.dump() << std::endl;
    fmt::print(stderr,
               "sift calibrate: threshold {:.6g} -> {:.6g} ({}): precision {:.4f}, recall {:.4f}, F1 {:.4f} on {} "
               "items; sift.json version {} -> {}\n",
               update.old_threshold, chosen.threshold, target.name(), chosen.precision, chosen.recall, chosen.f1,
               curve.n_items, update.old_version, update.new_version);
  });
}
