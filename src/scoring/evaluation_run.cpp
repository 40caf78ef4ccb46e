#include "scoring/evaluation_run.h"

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

RowResult score_one(const Labeler& labeler, const LabeledRow& labeled, const std::vector<std::string>& items,
                    const ScoringOptions& options) {
  try {
    return labeler.score_row(labeled.row.query, items, options);
  } catch (const Error& e) {
    fail("line {}: {}", labeled.line, e.what());
  }
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

ScoredRows score_labeled_rows(const Labeler& labeler, const std::vector<LabeledRow>& rows,
                              const ScoringOptions& options, const RowProgressFn& progress) {
  ScoredRows scored;
  scored.results.reserve(rows.size());
  const auto start = std::chrono::steady_clock::now();
  for (size_t r = 0; r < rows.size(); ++r) {
    scored.results.push_back(score_one(labeler, rows[r], rows[r].row.items, options));
    scored.n_labels += static_cast<int64_t>(rows[r].row.items.size());
    scored.prefill_tokens += scored.results.back().prefill_tokens;
    if (progress) progress("scoring", r + 1, rows.size());
  }
  scored.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return scored;
}

EvalReport evaluate(const Labeler& labeler, const std::vector<LabeledRow>& rows, const EvalOptions& options,
                    const RowProgressFn& progress) {
  if (options.shuffles < 0) fail("--shuffles must be >= 0, got {}", options.shuffles);
  EvalReport report;
  report.mode = options.scoring.mode;
  report.threshold = options.scoring.threshold.value_or(labeler.artifact().threshold);
  report.n_rows = static_cast<int64_t>(rows.size());
  report.shuffles = options.shuffles;

  const ScoredRows scored = score_labeled_rows(labeler, rows, options.scoring, progress);
  report.seconds = scored.seconds;
  report.n_labels = scored.n_labels;
  report.prefill_tokens = scored.prefill_tokens;
  for (size_t r = 0; r < rows.size(); ++r) {
    const RowResult& result = scored.results[r];
    add_labels(report.reference, result.labels, rows[r].labels);
    if (rows[r].truth) {
      if (!report.truth) report.truth.emplace();
      add_labels(*report.truth, result.labels, *rows[r].truth);
    }
  }

  // Order inconsistency: K seeded shuffles per row, labels matched back by item identity.
  for (size_t r = 0; r < rows.size() && options.shuffles > 0; ++r) {
    const std::vector<std::string>& items = rows[r].row.items;
    if (items.size() < 2) continue;
    for (int64_t k = 0; k < options.shuffles; ++k) {
      const std::vector<size_t> order = shuffled_order(items.size(), options.seed, r, static_cast<uint64_t>(k));
      const RowResult shuffled = score_one(labeler, rows[r], permuted(items, order), options.scoring);
      add_order_comparison(report.order, scored.results[r].labels, scored.results[r].scores, shuffled.labels,
                           shuffled.scores, order);
    }
    if (progress) progress("shuffles", r + 1, rows.size());
  }
  return report;
}

nlohmann::ordered_json eval_report_to_json(const EvalReport& report) {
  nlohmann::ordered_json out;
  out["mode"] = std::string(scoring_mode_name(report.mode));
  // Packed generation makes hard decisions: no threshold applies.
  out["threshold"] = report.mode == ScoringMode::Generate ? nlohmann::ordered_json(nullptr)
                                                          : nlohmann::ordered_json(report.threshold);
  out["n_rows"] = report.n_rows;
  out["n_items"] = report.reference.n_items;
  const nlohmann::ordered_json reference = counts_to_json(report.reference);
  for (const char* key : {"agreement", "precision", "recall", "f1"}) out[key] = reference[key];
  out["truth_agreement"] = report.truth ? nlohmann::ordered_json(report.truth->agreement()) : nullptr;
  out["order_inconsistency"] = report.shuffles > 0 ? nlohmann::ordered_json(report.order.rate()) : nullptr;
  out["n_unparsed"] = report.reference.n_unparsed;
  out["labels_per_second"] = report.labels_per_second();
  out["reference"] = reference;
  out["truth"] = report.truth ? counts_to_json(*report.truth) : nullptr;
  out["order"] = {{"shuffles", report.shuffles},
                  {"compared", report.order.n_compared},
                  {"changed", report.order.n_changed},
                  {"score_changed", report.order.n_score_changed},
                  {"max_score_change", report.order.max_score_change}};
  out["seconds"] = report.seconds;
  out["prefill_tokens"] = report.prefill_tokens;
  return out;
}

}  // namespace sift
