#pragma once
// Validation with the libtorch model: each row scored in the MIS layout (packed_layout, the
// same scores as single-candidate prompts up to float rounding), score_i =
// sigmoid(l_yes - l_no) at item i's answer position, label_i = score_i >= threshold.
#include <cstdint>
#include <vector>

#include "scoring/prompt.h"
#include "train/examples.h"
#include "train/torch_model.h"

namespace sift::train {

struct Agreement {
  int64_t n_pairs = 0;
  int64_t n_agree = 0;  // predicted label == reference label
  double rate() const { return n_pairs > 0 ? static_cast<double>(n_agree) / static_cast<double>(n_pairs) : 0.0; }
};

// Scores (one vector per row, one score per item), rows_per_batch rows at a time.
std::vector<std::vector<float>> score_rows(const TorchModel& model, const std::vector<EncodedRow>& rows,
                                           const AnswerTokenIds& answer, int64_t rows_per_batch = 8);

Agreement agreement(const TorchModel& model, const std::vector<EncodedRow>& rows, const AnswerTokenIds& answer,
                    double threshold = 0.5);

}  // namespace sift::train
