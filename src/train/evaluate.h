#pragma once
// Validation with the libtorch model.
//
// Label objective: each row scored in the MIS layout (packed_layout, the same scores as
// single-candidate prompts up to float rounding), score_i = sigmoid(l_yes - l_no) at item i's
// answer position, label_i = score_i >= threshold. The threshold is given, or the one that
// maximises agreement on the rows themselves (workflows/calibration.h, target "agreement":
// what `sift calibrate --target agreement` chooses on the same scores).
//
// LM objective: the mean next-token loss over every target token of the examples.
//
// Generate objective (generate_examples.h), teacher-forced greedy: with the reference answer
// list as context (generate_layout), item k agrees with its reference label when greedy
// decoding would write its part of the list as the reference does: at every answer-list token
// after the previous item's decision up to its own decision (AnswerDecision: "\n", its number,
// ": ", the answer) the argmax over the vocabulary is the reference token. A wrong answer, an
// answer token of neither label, or a malformed number or separator is a disagreement, as
// greedy decoding's parse would make it. A cheap signal during training (one forward pass);
// it differs from greedy decoding only in conditioning on the reference's earlier answers
// rather than the model's own (`sift eval --mode generate` measures decoding itself).
#include <cstdint>
#include <vector>

#include "scoring/prompt.h"
#include "train/example_set.h"
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

struct ThresholdAgreement {
  double threshold = 0;
  double agreement = 0;
};
// The agreement-maximising threshold on the rows and the agreement there. Error when no row's
// reference label is YES (the precision-recall curve is undefined).
ThresholdAgreement best_threshold_agreement(const TorchModel& model, const std::vector<EncodedRow>& rows,
                                            const AnswerTokenIds& answer);

// Mean next-token loss over every readout of the examples (an lm ExampleSet), examples_per_batch at a time.
double mean_loss(const TorchModel& model, const ExampleSet& examples, int64_t examples_per_batch = 8);

Agreement teacher_forced_agreement(const TorchModel& model, const std::vector<GenerateRow>& rows,
                                   int64_t rows_per_batch = 8);

}  // namespace sift::train
