#pragma once
// Scoring labeled rows through the scoring engine (ScoringEngine::score_row, exactly what
// `sift score` runs), and the evaluation report of `sift eval` built on it.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "workflows/evaluation.h"
#include "workflows/labeled_rows.h"
#include "scoring/engine.h"

namespace sift {

// Called after each row with (rows done, rows in all) of the pass named by `what`.
using RowProgressFn = std::function<void(const char* what, size_t rows_done, size_t n_rows)>;

struct ScoredRows {
  std::vector<RowResult> results;  // one per row
  int64_t n_labels = 0;
  int64_t prefill_tokens = 0;
  double seconds = 0;
};

// Scores every row, in order; an Error from the engine names the row's file line.
ScoredRows score_labeled_rows(const ScoringEngine& labeler, const std::vector<LabeledRow>& rows,
                              const ScoringOptions& options, const RowProgressFn& progress = {});

struct EvalOptions {
  ScoringOptions scoring;
  int64_t shuffles = 3;  // K: each row's candidates scored again in K seeded random orders
  uint64_t seed = 0;
};

struct EvalReport {
  ScoringMode mode = ScoringMode::Mis;
  double threshold = 0.5;
  int64_t n_rows = 0;
  LabelCounts reference;
  std::optional<LabelCounts> truth;  // rows that have "truth" only
  int64_t shuffles = 0;
  OrderConsistency order;
  double seconds = 0;  // the unshuffled pass
  int64_t n_labels = 0;
  int64_t prefill_tokens = 0;

  double labels_per_second() const { return seconds > 0 ? static_cast<double>(n_labels) / seconds : 0.0; }
};

EvalReport evaluate(const ScoringEngine& labeler, const std::vector<LabeledRow>& rows, const EvalOptions& options,
                    const RowProgressFn& progress = {});

nlohmann::ordered_json eval_report_to_json(const EvalReport& report);

}  // namespace sift
