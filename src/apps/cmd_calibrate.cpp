// sift calibrate: choose a labeler's threshold on labeled validation rows (paper §3.3). It
// never rewrites a labeler by surprise: --dry-run prints the chosen point and writes nothing,
// --out NEW_DIR writes a calibrated copy, --in-place rewrites DIR/sift.json (one of the three
// is required). Math: workflows/calibration.h; files: workflows/calibration_output.h.
// --fit METHOD also fits a calibration map from the raw scores to calibrated probabilities
// (workflows/calibration_fit.h) on the same items and writes it into sift.json;
// --threshold-on probability chooses the threshold on those probabilities (the new map's, or
// without --fit the labeler's own) instead of on the scores. What it writes carries new
// self-test probes (workflows/calibration_probes.h). Like every command that scores, it runs
// the labeler's probes first and refuses a labeler that fails them (--force does not skip
// them: a threshold chosen on meaningless scores is meaningless).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/model_option.h"
#include "apps/command.h"
#include "apps/engine_option.h"
#include "apps/scoring_flags.h"
#include "apps/max_line_bytes_option.h"
#include "core/error.h"
#include "core/utc_time.h"
#include "io/content_hash.h"
#include "io/path_lock.h"
#include "sift/labeler.h"
#include "workflows/artifact_update.h"
#include "workflows/calibration.h"
#include "workflows/calibration_probes.h"
#include "workflows/calibration_fit.h"
#include "workflows/calibration_output.h"
#include "workflows/evaluation_run.h"
#include "workflows/labeled_rows.h"
#include "workflows/pr_curve_files.h"
#include "workflows/reliability.h"

namespace {

namespace fs = std::filesystem;

// Below these a chosen threshold is noisy: a warning, not an error.
constexpr int64_t kFewItems = 1000;
constexpr int64_t kFewPositives = 100;

struct CalibrateArgs {
  std::string model, input, target = "f1", out, out_dir, fit, threshold_on = "score";
  bool dry_run = false, in_place = false, strict = false, force = false;
  int64_t max_line_bytes = sift::kDefaultMaxLineBytes;
  sift::apps::ScoringFlags scoring;
};

void check_write_mode(const CalibrateArgs& args) {
  const int modes = int(args.dry_run) + int(!args.out.empty()) + int(args.in_place);
  if (modes != 1)
    sift::apps::usage_error(
        "say how to write the calibration: --dry-run (print the chosen threshold, write nothing), --out NEW_DIR (a "
        "calibrated copy of the labeler) or --in-place (rewrite {}/sift.json); exactly one of them",
        args.model);
}

// SHA-256 of the items a map was fitted on, one line "score<TAB>label" each (the score in
// shortest round-trip form, the label 0/1), in input order: the same rows scored by the same
// labeler give the same fingerprint, whichever file or stream they came from.
std::string fitting_data_sha256(const std::vector<double>& scores, const std::vector<bool>& labels) {
  std::string text;
  for (size_t i = 0; i < scores.size(); ++i) text += fmt::format("{}\t{}\n", scores[i], labels[i] ? 1 : 0);
  return sift::sha256_hex(text);
}

nlohmann::ordered_json reliability_json(const sift::Reliability& r) { return {{"ece", r.ece}, {"brier", r.brier}}; }

// The fitted map as sift.json keeps it: its method fields, then how it was fitted.
nlohmann::ordered_json fitted_map_json(const sift::CalibrationMap& map, const std::string& input_name,
                                       const std::vector<double>& scores, const std::vector<bool>& labels,
                                       const sift::Reliability& before, const sift::Reliability& after) {
  nlohmann::ordered_json out = {{"format", sift::kCalibrationMapFormat}};
  const nlohmann::ordered_json fields = sift::calibration_map_fields(map);
  for (const auto& field : fields.items()) out[field.key()] = field.value();
  out["fitted_on"] = {{"input", input_name},
                      {"data_sha256", fitting_data_sha256(scores, labels)},
                      {"n_items", static_cast<int64_t>(scores.size())},
                      {"n_positive", static_cast<int64_t>(std::count(labels.begin(), labels.end(), true))}};
  out["ece_bins"] = sift::kReliabilityBins;
  out["before"] = reliability_json(before);
  out["after"] = reliability_json(after);
  out["fitted_at"] = sift::utc_timestamp();
  return out;
}

void run_calibrate(CalibrateArgs& args) {
  check_write_mode(args);
  if (args.in_place && sift::apps::is_hub_model(args.model))
    sift::apps::usage_error("--in-place: {} is a Hugging Face Hub model, whose files in the Hub cache are not sift's "
                            "to rewrite; write a calibrated copy with --out NEW_DIR", args.model);
  args.model = sift::apps::model_directory(args.model);
  const std::optional<sift::CalibrationMethod> fit =
      args.fit.empty() ? std::nullopt : sift::parse_calibration_method(args.fit);
  const sift::ThresholdOn threshold_on = *sift::parse_threshold_on(args.threshold_on);
  const sift::CalibrationTarget target = sift::parse_calibration_target(args.target);
  const sift::ScoringOptions scoring = args.scoring.scoring_options();
  if (!args.dry_run || !args.out_dir.empty()) {  // fail before the long part
    sift::require_gnuplot();
    sift::check_calibration_destinations(
        args.dry_run || args.out.empty() ? std::nullopt : std::optional<fs::path>(args.out),
        args.out_dir.empty() ? std::nullopt : std::optional<fs::path>(args.out_dir));
  }

  const fs::path model_dir = args.model;
  // Held from before sift.json is read until it is written, so no concurrent run loses it.
  std::unique_ptr<sift::PathLock> lock;
  if (args.in_place) lock = std::make_unique<sift::PathLock>(model_dir);
  if (!args.out.empty()) lock = std::make_unique<sift::PathLock>(fs::path(args.out));

  const sift::Labeler labeler =
      sift::apps::load_labeler(model_dir, args.scoring.load_options(), args.scoring.engines(), scoring.mode);
  labeler.resolve(scoring);
  if (threshold_on == sift::ThresholdOn::Probability && !fit && !labeler.calibrated())
    sift::apps::usage_error(
        "--threshold-on probability: {}/sift.json has no calibration map to make probabilities; fit one with --fit "
        "temperature|platt|isotonic",
        args.model);
  const sift::LabeledRows input = sift::read_labeled_rows(args.input, args.max_line_bytes);
  const std::string input_name = args.input.empty() || args.input == "-" ? "stdin" : args.input;
  for (const sift::RowError& e : input.errors)
    sift::apps::warn("sift calibrate", fmt::format("{}:{}: {} (row left out)", input_name, e.line, e.message));

  sift::ProgressReporter progress =
      sift::apps::progress_reporter("sift calibrate", "rows", static_cast<int64_t>(input.rows.size()));
  const sift::ScoredLabeledRows scored = sift::score_labeled_rows(
      labeler, input.rows, scoring, [&progress](int64_t done, std::string_view pass) { progress.update(done, pass); });
  for (const sift::RowError& e : scored.errors)
    progress.message(fmt::format("sift calibrate: warning: {}:{}: {} (row left out)", input_name, e.line, e.message));

  std::vector<double> scores, old_probabilities;  // the raw P(yes); the labeler's own map's (when it has one)
  std::vector<bool> reference;
  for (size_t r = 0; r < input.rows.size(); ++r) {
    const sift::RowResult& result = scored.results[r];
    if (!result.error.empty()) continue;
    for (size_t i = 0; i < input.rows[r].labels.size(); ++i) {
      scores.push_back(*result.scores[i]);
      if (!result.probabilities.empty()) old_probabilities.push_back(*result.probabilities[i]);
      reference.push_back(input.rows[r].labels[i]);
    }
  }
  const int64_t errors = static_cast<int64_t>(input.errors.size() + scored.errors.size());
  progress.finish(fmt::format("{} scored, {}, {} left out",
                              sift::apps::counted(int64_t(input.rows.size() - scored.errors.size()), "row"),
                              sift::apps::counted(int64_t(scores.size()), "item"), sift::apps::counted(errors, "row")));
  sift::apps::check_strict(args.strict, errors, errors + int64_t(input.rows.size() - scored.errors.size()),
                           "left out, with the warnings above");  // before sift.json, the copy or the curves
  if (scores.empty()) sift::fail("{}: the rows hold no items to calibrate on", input_name);

  // --fit: the map, and its probabilities; the threshold is chosen on `values`.
  std::optional<sift::CalibrationMap> map;
  std::optional<nlohmann::ordered_json> map_json;
  std::vector<double> probabilities = old_probabilities;
  if (fit) {
    map = sift::fit_calibration_map(*fit, scores, reference);
    probabilities.clear();
    for (double s : scores) probabilities.push_back(map->apply(s));
    const sift::Reliability before = sift::reliability(scores, reference);
    const sift::Reliability after = sift::reliability(probabilities, reference);
    map_json = fitted_map_json(*map, input_name, scores, reference, before, after);
    fmt::print(stderr,
               "sift calibrate: {} map fitted on {} items: ECE {:.4f} -> {:.4f} ({} equal-width bins), Brier {:.4f} -> "
               "{:.4f}\n",
               args.fit, scores.size(), before.ece, after.ece, sift::kReliabilityBins, before.brier, after.brier);
  }
  const std::vector<double>& values = threshold_on == sift::ThresholdOn::Probability ? probabilities : scores;
  const sift::PrCurve curve = sift::precision_recall_curve(values, reference);
  const sift::PrPoint chosen = sift::choose_operating_point(curve, target);
  const double average_precision = sift::average_precision(curve);
  if (curve.n_items < kFewItems || curve.n_positive < kFewPositives)
    sift::apps::warn("sift calibrate",
                     fmt::format("only {} items and {} positives: a threshold chosen on fewer than {} items or {} "
                                 "positives is noisy; calibrate on a larger validation set if you can",
                                 curve.n_items, curve.n_positive, kFewItems, kFewPositives));
  if (const std::string problem = sift::separation_problem(curve, chosen); !problem.empty()) {
    if (!args.force)
      sift::fail("{}. A labeler whose weights are random or untrained, or whose prompt does not suit them, scores so: "
                 "check it with `sift eval`; --force calibrates anyway",
                 problem);
    sift::apps::warn("sift calibrate", problem + " (--force: calibrated anyway)");
  }

  nlohmann::ordered_json record = {{"target", target.name()},
                                   {"threshold_on", args.threshold_on},
                                   {"input", input_name},
                                   {"mode", sift::scoring_mode_name(scoring.mode)},
                                   {"weights", args.scoring.weights},
                                   {"n_items", curve.n_items},
                                   {"n_positive", curve.n_positive},
                                   {"precision", chosen.precision},
                                   {"recall", chosen.recall},
                                   {"f1", chosen.f1},
                                   {"agreement", chosen.agreement},
                                   {"average_precision", average_precision},
                                   {"rows_left_out", errors},
                                   {"calibrated_at", sift::utc_timestamp()}};
  if (fit) record["fit"] = args.fit;
  sift::ArtifactUpdate update = sift::calibrated_artifact(model_dir / "sift.json", chosen.threshold, target.name(),
                                                          record, threshold_on, map_json);
  // New self-test probes: rows of its input near the chosen threshold, scored with the F32
  // weights (whatever --weights or --engine scored the calibration). A threshold on the
  // probability is taken back to the scores: the lowest score these items map above it.
  double score_threshold = chosen.threshold;
  if (threshold_on == sift::ThresholdOn::Probability) {
    score_threshold = 1.0;
    for (size_t i = 0; i < values.size(); ++i)
      if (values[i] >= chosen.threshold) score_threshold = std::min(score_threshold, scores[i]);
  }
  const size_t probes_written =
      args.dry_run ? 0 : sift::add_calibration_probes(update, model_dir, input.rows, scored.results, score_threshold);

  nlohmann::ordered_json summary = {{"threshold", chosen.threshold},
                                    {"precision", chosen.precision},
                                    {"recall", chosen.recall},
                                    {"f1", chosen.f1},
                                    {"agreement", chosen.agreement},
                                    {"average_precision", average_precision},
                                    {"n_items", curve.n_items},
                                    {"n_positive", curve.n_positive},
                                    {"errors", errors},
                                    {"old_threshold", update.old_threshold},
                                    {"target", target.name()},
                                    {"threshold_on", args.threshold_on},
                                    {"version", update.new_version},
                                    {"old_version", update.old_version},
                                    {"dry_run", args.dry_run}};
  if (probes_written > 0) summary["self_test_probes"] = probes_written;
  if (map_json) summary["calibration_map"] = *map_json;
  std::string written = "nothing written (--dry-run)";
  const sift::ScoreHistogram histogram = sift::score_histogram(values, reference, sift::kHistogramBins);
  const sift::CalibrationCurves curves{
      curve, chosen, histogram,
      fmt::format("{}: {} on {} (target {}{}{})", model_dir.filename().string(), update.new_version,
                  fs::path(input_name).filename().string(), target.name(),
                  threshold_on == sift::ThresholdOn::Probability ? ", on the calibrated probability" : "",
                  args.dry_run ? ", a dry run" : "")};
  const std::optional<fs::path> curve_dir = args.out_dir.empty() ? std::nullopt : std::optional<fs::path>(args.out_dir);
  if (args.dry_run && curve_dir) {
    sift::write_calibration_curves(*curve_dir, curves);
    summary["curve"] = (*curve_dir / "pr_curve.tsv").string();
    summary["plot"] = (*curve_dir / "pr_curve.png").string();
    written = fmt::format("only the curves written, to {} (--dry-run)", curve_dir->string());
  }
  if (!args.dry_run) {
    const sift::WrittenCalibration files =
        args.in_place ? sift::write_calibration_in_place(model_dir, update, curves, curve_dir)
                      : sift::write_calibrated_copy(model_dir, args.out, update, curves, curve_dir);
    summary["sift_json"] = files.sift_json.string();
    summary["curve"] = (files.curve_dir / "pr_curve.tsv").string();
    summary["plot"] = (files.curve_dir / "pr_curve.png").string();
    written = fmt::format("written to {}", files.sift_json.string());
  }
  sift::apps::print_report(summary);
  fmt::print(stderr,
             "sift calibrate: threshold {:.6g} -> {:.6g} ({}, on the {}): precision {:.4f}, recall {:.4f}, F1 {:.4f}, agreement "
             "{:.4f}, average precision {:.4f} on {} items; version {} -> {}, {}; {} left out\n",
             update.old_threshold, chosen.threshold, target.name(), args.threshold_on, chosen.precision, chosen.recall, chosen.f1,
             chosen.agreement, average_precision, curve.n_items, update.old_version, update.new_version, written,
             sift::apps::counted(errors, "row"));
}

}  // namespace

SIFT_COMMAND(calibrate) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Choose the threshold on labeled validation rows; print it (--dry-run), or write it as a new sift.json version "
      "into a copy (--out NEW_DIR) or the labeler itself (--in-place), with the precision-recall curve");
  cmd->add_option("--model", args->model, "labeler directory or Hugging Face Hub id org/name[@revision]")->required();
  cmd->add_option("--input", args->input,
                  "JSON-lines rows {\"query\", \"items\", \"labels\": [0/1...]} (default, or -: stdin)");
  cmd->add_option("--target", args->target,
                  "f1 (highest F1) | agreement (most labels equal to the reference) | precision=P (most recall with "
                  "precision >= P) | recall=R (most precision with recall >= R)")
      ->capture_default_str();
  cmd->add_option("--fit", args->fit,
                  "also fit a calibration map from the score to a calibrated probability on these rows and write it "
                  "(sift.json's calibration_map): temperature (sigmoid(logit(p)/T)) | platt (sigmoid(a*logit(p)+b)) | "
                  "isotonic (pool-adjacent-violators)")
      ->check(CLI::IsMember({"temperature", "platt", "isotonic"}));
  cmd->add_option("--threshold-on", args->threshold_on,
                  "score (the raw P(yes)) | probability (the calibrated one: the map of --fit, else the labeler's own): "
                  "what the chosen threshold applies to, written as sift.json's threshold_on")
      ->check(CLI::IsMember({"score", "probability"}))
      ->capture_default_str();
  cmd->add_flag("--dry-run", args->dry_run,
                "print the chosen operating point; write nothing but, with --out-dir, the curve files");
  cmd->add_option("--out", args->out, "write a calibrated copy of the labeler to this new folder");
  cmd->add_flag("--in-place", args->in_place, "rewrite MODEL/sift.json (the old version stays in its history)");
  sift::apps::add_scoring_flags(cmd, sift::apps::Command::Calibrate, args->scoring);
  cmd->add_option("--out-dir", args->out_dir,
                  "where the curve files go (default: the labeler's calibration/; with --dry-run, only they are written)");
  sift::apps::add_max_line_bytes_option(cmd, args->max_line_bytes, "a longer line is left out, with a warning naming it");
  sift::apps::add_strict_flag(cmd, args->strict, "was left out");
  cmd->add_flag("--force", args->force,
                "calibrate even when the scores do not separate YES from NO (average precision less than a tenth of the "
                "way from the positive rate to 1, or 99% of the items labeled YES): refused otherwise, as a labeler that separates "
                "nothing");
  cmd->callback([args] { run_calibrate(*args); });
}
