#include "workflows/evaluation_run.h"

#include <algorithm>
#include <chrono>

#include "core/error.h"

namespace sift {
namespace {

template <typename T>
std::vector<T> permuted(const std::vector<T>& values, const std::vector<size_t>& order) {
  std::vector<T> out;
  out.reserve(order.size());
  for (size_t original : order) out.push_back(values[original]);
  return out;
}

// Scores rows (items_of[r] the items of rows[r], maybe reordered) on one session, in chunks
// of about one forward call's tokens so rows share calls; progress after each chunk
// (`done_before`: rows of earlier passes). A row the engine cannot score keeps its error.
std::vector<RowResult> score_in_chunks(Context& context, const std::vector<LabeledRow>& rows,
                                       const std::vector<std::vector<std::string>>& items_of,
                                       const ScoringOptions& options, const char* what, int64_t done_before,
                                       const RowProgressFn& progress) {
  const int64_t budget = context.labeler().resolve(options).call_tokens;
  std::vector<RowResult> results;
  results.reserve(rows.size());
  for (size_t begin = 0; begin < rows.size();) {
    std::vector<Row> chunk;
    int64_t chunk_chars = 0;  // a cheap stand-in for tokens: a token is at least one byte
    for (size_t r = begin; r < rows.size() && (chunk.empty() || chunk_chars < budget); ++r) {
      chunk.push_back({rows[r].row.query, items_of[r]});
      chunk_chars += static_cast<int64_t>(rows[r].row.query.size());
      for (const std::string& item : items_of[r]) chunk_chars += static_cast<int64_t>(item.size());
    }
    std::vector<RowResult> scored = context.score_rows(chunk, options);
    for (RowResult& result : scored) results.push_back(std::move(result));
    begin += chunk.size();
    if (progress) progress(done_before + static_cast<int64_t>(begin), what);
  }
  return results;
}

nlohmann::ordered_json counts_to_json(const LabelCounts& counts) {
  return {{"agreement", counts.agreement()},
          {"precision", counts.precision()},
          {"recall", counts.recall()},
          {"f1", counts.f1()},
          {"n_items", counts.n_items},
          {"true_positives", counts.true_positives},
          {"false_positives", counts.false_positives},
          {"false_negatives", counts.false_negatives}};
}

}  // namespace

ScoredLabeledRows score_labeled_rows(const Labeler& labeler, const std::vector<LabeledRow>& rows,
                              const ScoringOptions& options, const RowProgressFn& progress) {
  Context context = labeler.context();
  std::vector<std::vector<std::string>> items_of;
  for (const LabeledRow& row : rows) items_of.push_back(row.row.items);
  const auto start = std::chrono::steady_clock::now();
  ScoredLabeledRows scored;
  scored.results = score_in_chunks(context, rows, items_of, options, "scoring", 0, progress);
  scored.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!scored.results[r].error.empty()) {
      scored.errors.push_back({rows[r].line, scored.results[r].error});
      continue;
    }
    scored.n_labels += static_cast<int64_t>(rows[r].row.items.size());
    scored.prefill_tokens += scored.results[r].prefill_tokens;
  }
  return scored;
}

int64_t evaluation_passes_rows(size_t n_rows, const EvalOptions& options) {
  return static_cast<int64_t>(n_rows) * (1 + std::max<int64_t>(options.shuffles, 0));
}

EvalReport evaluate(const Labeler& labeler, const std::vector<LabeledRow>& rows, const EvalOptions& options,
                    const RowProgressFn& progress) {
  if (options.shuffles < 0) fail("--shuffles must be >= 0, got {}", options.shuffles);
  EvalReport report;
  report.mode = options.scoring.mode;
  report.threshold = labeler.resolve(options.scoring).threshold;
  report.shuffles = options.shuffles;

  const ScoredLabeledRows scored = score_labeled_rows(labeler, rows, options.scoring, progress);
  report.seconds = scored.seconds;
  report.n_labels = scored.n_labels;
  report.prefill_tokens = scored.prefill_tokens;
  report.errors = scored.errors;
  report.n_rows = static_cast<int64_t>(rows.size() - scored.errors.size());
  std::vector<double> scores, probabilities;
  std::vector<bool> reference;
  for (size_t r = 0; r < rows.size(); ++r) {
    const RowResult& result = scored.results[r];
    if (!result.error.empty()) continue;
    if (report.mode != ScoringMode::Generate) {
      for (size_t i = 0; i < result.scores.size(); ++i) {
        scores.push_back(*result.scores[i]);
        if (!result.probabilities.empty()) probabilities.push_back(*result.probabilities[i]);
        reference.push_back(rows[r].labels[i]);
      }
    }
    add_labels(report.reference, result.labels, rows[r].labels);
    if (rows[r].truth) {
      if (!report.truth) report.truth.emplace();
      add_labels(*report.truth, result.labels, *rows[r].truth);
    }
  }

  if (!scores.empty()) {
    report.raw_reliability = reliability(scores, reference);
    if (probabilities.size() == scores.size()) report.calibrated_reliability = reliability(probabilities, reference);
  }

  // Order inconsistency: K seeded shuffles per row, labels matched back by item identity; the
  // shuffled labels' agreement with the reference too.
  Context context = labeler.context();
  for (int64_t k = 0; k < options.shuffles; ++k) {
    std::vector<std::vector<size_t>> orders;
    std::vector<std::vector<std::string>> shuffled_items;
    for (size_t r = 0; r < rows.size(); ++r) {
      orders.push_back(shuffled_order(rows[r].row.items.size(), options.seed, r, static_cast<uint64_t>(k)));
      shuffled_items.push_back(permuted(rows[r].row.items, orders.back()));
    }
    const int64_t done_before = static_cast<int64_t>(rows.size()) * (k + 1);
    const std::vector<RowResult> shuffled =
        score_in_chunks(context, rows, shuffled_items, options.scoring, "shuffles", done_before, progress);
    for (size_t r = 0; r < rows.size(); ++r) {
      if (!scored.results[r].error.empty() || !shuffled[r].error.empty()) continue;
      add_labels(report.shuffled_reference, shuffled[r].labels, permuted(rows[r].labels, orders[r]));
      if (rows[r].truth) {
        if (!report.shuffled_truth) report.shuffled_truth.emplace();
        add_labels(*report.shuffled_truth, shuffled[r].labels, permuted(*rows[r].truth, orders[r]));
      }
      if (rows[r].row.items.size() < 2) continue;
      add_order_comparison(report.order, scored.results[r].labels, scored.results[r].scores, shuffled[r].labels,
                           shuffled[r].scores, orders[r]);
    }
  }
  return report;
}

nlohmann::ordered_json eval_report_to_json(const EvalReport& report, int64_t input_errors) {
  nlohmann::ordered_json out;
  out["mode"] = std::string(scoring_mode_name(report.mode));
  // Packed generation makes hard decisions: no threshold applies.
  out["threshold"] = report.mode == ScoringMode::Generate ? nlohmann::ordered_json(nullptr)
                                                          : nlohmann::ordered_json(report.threshold);
  out["n_rows"] = report.n_rows;
  out["errors"] = input_errors + static_cast<int64_t>(report.errors.size());
  out["n_items"] = report.reference.n_items;
  const nlohmann::ordered_json reference = counts_to_json(report.reference);
  for (const char* key : {"agreement", "precision", "recall", "f1"}) out[key] = reference[key];
  out["truth_agreement"] = report.truth ? nlohmann::ordered_json(report.truth->agreement()) : nullptr;
  out["order_inconsistency"] = report.shuffles > 0 ? nlohmann::ordered_json(report.order.rate()) : nullptr;
  const bool shuffled = report.shuffles > 0;
  out["shuffled_agreement"] = shuffled ? nlohmann::ordered_json(report.shuffled_reference.agreement()) : nullptr;
  out["shuffled_truth_agreement"] =
      shuffled && report.shuffled_truth ? nlohmann::ordered_json(report.shuffled_truth->agreement()) : nullptr;
  out["n_unparsed"] = report.reference.n_unparsed;
  out["labels_per_second"] = report.labels_per_second();
  out["reference"] = reference;
  out["truth"] = report.truth ? counts_to_json(*report.truth) : nullptr;
  out["order"] = {{"shuffles", report.shuffles},
                  {"compared", report.order.n_compared},
                  {"changed", report.order.n_changed},
                  {"score_changed", report.order.n_score_changed},
                  {"max_score_change", report.order.max_score_change}};
  const auto ece_brier = [](const std::optional<Reliability>& r) {
    return r ? nlohmann::ordered_json{{"ece", r->ece}, {"brier", r->brier}} : nlohmann::ordered_json(nullptr);
  };
  out["calibration"] = report.raw_reliability
                           ? nlohmann::ordered_json{{"ece_bins", kReliabilityBins},
                                                    {"raw", ece_brier(report.raw_reliability)},
                                                    {"calibrated", ece_brier(report.calibrated_reliability)}}
                           : nlohmann::ordered_json(nullptr);
  out["seconds"] = report.seconds;
  out["prefill_tokens"] = report.prefill_tokens;
  return out;
}

}  // namespace sift
