#pragma once
// Scoring labeled rows through a context of the labeler (Context::score_rows, exactly what
// `sift score` runs), and the evaluation report of `sift eval` built on it. A row the engine
// cannot score (too long for the model, invalid UTF-8) is that row's error: it is left out
// of every count and listed in the report, and the others are scored.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "workflows/evaluation.h"
#include "workflows/labeled_rows.h"
#include "workflows/reliability.h"
#include "sift/labeler.h"

namespace sift {

// Called as rows are scored with (rows scored so far over all passes, the current pass's name).
using RowProgressFn = std::function<void(int64_t rows_done, std::string_view pass)>;

struct ScoredLabeledRows {
  std::vector<RowResult> results;  // one per row; a row that could not be scored has its error set
  std::vector<RowError> errors;    // those rows, by input line
  int64_t n_labels = 0;            // items of the rows scored
  int64_t prefill_tokens = 0;
  double seconds = 0;
};

// Scores every row, in order.
ScoredLabeledRows score_labeled_rows(const Labeler& labeler, const std::vector<LabeledRow>& rows,
                              const ScoringOptions& options, const RowProgressFn& progress = {});

struct EvalOptions {
  ScoringOptions scoring;
  int64_t shuffles = 3;  // K: each row's candidates scored again in K seeded random orders
  uint64_t seed = 0;
};

// Rows scored over all of evaluate()'s passes: the progress total.
int64_t evaluation_passes_rows(size_t n_rows, const EvalOptions& options);

struct EvalReport {
  ScoringMode mode = ScoringMode::Mis;
  double threshold = 0.5;
  int64_t n_rows = 0;              // rows evaluated (scored without error)
  std::vector<RowError> errors;    // rows the engine could not score, left out
  LabelCounts reference;
  std::optional<LabelCounts> truth;  // rows that have "truth" only
  int64_t shuffles = 0;
  OrderConsistency order;
  // The shuffled passes' labels against the reference (and the truth), matched back by item:
  // the agreement of a labeler that cannot lean on the candidates' order. Summed over the K
  // shuffles; empty when K = 0.
  LabelCounts shuffled_reference;
  std::optional<LabelCounts> shuffled_truth;
  double seconds = 0;  // the unshuffled pass
  int64_t n_labels = 0;
  int64_t prefill_tokens = 0;
  // How well the values match the reference rates (reliability.h: ECE over 15 bins, Brier):
  // the raw scores, and the calibrated probabilities when the labeler has a map. Not in mode
  // generate (hard decisions).
  std::optional<Reliability> raw_reliability;
  std::optional<Reliability> calibrated_reliability;

  double labels_per_second() const { return seconds > 0 ? static_cast<double>(n_labels) / seconds : 0.0; }
};

EvalReport evaluate(const Labeler& labeler, const std::vector<LabeledRow>& rows, const EvalOptions& options,
                    const RowProgressFn& progress = {});

// The report as one JSON object; `input_errors` counts the rows that could not even be read.
nlohmann::ordered_json eval_report_to_json(const EvalReport& report, int64_t input_errors = 0);

}  // namespace sift
