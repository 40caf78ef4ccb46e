#pragma once
// What the trainer trains on: a list of examples, each one training sequence (a
// SequenceLayout with its readout rows and target ids) of known size. The trainer only
// plans batches over the sizes (batch_plan.h) and asks for the layouts of each step, so a
// training objective is a way of turning rows into examples:
//
//   label (paper §3.2)    one [q; c] per labeled pair, or with pack one MIS-packed row
//                         [q; c1..cN]; one readout per pair (its answer position)
//   generate (§2.4)       one causal sequence per row: the packed-generation prompt and the
//                         answer list; a readout per answer-list token (generate_examples.h)
//   lm                    a sequence of plain text, a readout per token (lm_examples.h);
//                         n_labels counts target tokens
//
// ExampleSize.n_labels is the labeled pairs an example carries (1 per candidate), so
// --batch-size counts the same supervision, pairs, whatever the objective.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "train/batch_plan.h"
#include "train/examples.h"
#include "train/sequence_layout.h"

namespace sift::train {

struct ExampleSet {
  std::string objective;                          // "label", "generate" or "lm": part of the resume fingerprint
  std::string label_unit = "pairs";               // what n_labels counts, for progress lines
  std::vector<ExampleSize> sizes;                 // one per example
  std::function<SequenceLayout(int32_t)> layout;  // example e as the model sees it
  // --targets scores: the layouts carry the teacher's P(YES) per readout (soft_targets), and the
  // trainer's loss is soft_label_loss over these two answer rows (loss.h); else label_only_loss.
  std::optional<AnswerTokenIds> soft_answer;
};

// The size of a row as one MIS-packed example: {Lq + sum_i Li, N}.
ExampleSize packed_example_size(const std::vector<int32_t>& query, const std::vector<std::vector<int32_t>>& items);

// Label-only examples of rows (which must outlive the set): single-candidate pairs
// ({Lq + Li, 1} each), or with pack one MIS-packed row per example (packed_example_size).
// Rows without items give no example. With soft_answer, every row must carry its soft targets
// (EncodedRow::soft) and the examples train on them (ExampleSet::soft_answer).
ExampleSet label_examples(const std::vector<EncodedRow>& rows, bool pack,
                          std::optional<AnswerTokenIds> soft_answer = std::nullopt);

}  // namespace sift::train
