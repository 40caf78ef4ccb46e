#pragma once
// Validation with the libtorch model.
//
// Label objective: each row scored in the MIS layout (packed_layout, the same scores as
// single-candidate prompts up to float rounding), score_i = sigmoid(l_yes - l_no) at item i's
// answer position, label_i = score_i >= threshold.
//
// Generate objective (generate_examples.h), teacher-forced: with the reference answer list as
// context (generate_layout), item k's label is YES when the logit of the token a YES writes at
// its decision position is >= that of the token a NO writes there (AnswerDecision). A cheap
// signal during training; it bounds what greedy decoding gets, which must also write the
// format and condition on its own earlier answers (`sift eval --mode generate` measures that).
#include <cstdint>
#include <vector>

#include "scoring/prompt.h"
#include "train/examples.h"
#include "train/generate_examples.h"
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

Agreement teacher_forced_agreement(const TorchModel& model, const std::vector<GenerateRow>& rows,
                                   int64_t rows_per_batch = 8);

}  // namespace sift::train
