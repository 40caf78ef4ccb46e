#pragma once
// Packed-generation training (`sift train --objective generate`, paper §2.4): the baseline
// fine-tuned from the same rows, base model and step budget as label-only scoring, on the
// prompt `sift score --mode generate` prefills.
//
// A row of N candidates with reference labels y becomes ONE causal sequence:
//
//   prompt  = PromptEncoder::generate_prompt(query_tokens(q), [generate_item_tokens(k, c_k)], k = 1..N)
//             (the prefill of `sift score --mode generate` for the row as one request)
//   answer  = PromptEncoder::generate_answer_list_tokens(y)      "1: <yes|no>\n...N: <yes|no>\n"
//   ids     = prompt ++ answer[0 .. A-2]      positions 0 .. P+A-2, one causal segment
//   readout = token P-1+j with target answer[j], j = 0 .. A-1              (teacher forcing)
//
// so the loss (loss.h) is the mean NLL over the answer-list tokens, every prompt token
// masked, and the model learns to write the list greedy decoding then parses.
//
// Planning: an example is planned with the size of the same row MIS-packed (example_set.h:
// packed_example_size, n_labels = N), so --objective generate and --pack on the same rows get
// the same batches, step for step: the same rows per step and the same number of steps.
//
// Length: a row is left out (its RowError) when P + A is more than the model's positions
// or more than max_sequence_tokens (the sequence the decoder would hold at its last token).
#include <cstdint>
#include <vector>

#include "scoring/prompt.h"
#include "train/batch_plan.h"
#include "train/example_set.h"
#include "train/examples.h"
#include "train/sequence_layout.h"
#include "workflows/labeled_rows.h"

namespace sift::train {

// Where item k's label shows in the answer list: answer[index] is the token its reference
// label writes, `other` the token the opposite label would write there (the first token at
// which the two lists differ; both continue the same reference prefix).
struct AnswerDecision {
  int32_t index = 0;
  int32_t other = 0;
};

struct GenerateRow {
  int64_t line = 0;  // in the input
  std::vector<int32_t> prompt;
  std::vector<int32_t> answer;  // the answer list's ids
  std::vector<int8_t> labels;   // the reference labels y, one per candidate
  std::vector<AnswerDecision> decisions;  // one per candidate
  ExampleSize plan_size;        // the row MIS-packed (see above)
};

struct GenerateRows {
  std::vector<GenerateRow> rows;
  std::vector<RowError> errors;  // rows left out: not encodable or too long
};

// limits.pack is not read (the generate sequence is always the whole row).
GenerateRows encode_generate_rows(const std::vector<LabeledRow>& rows, const PromptEncoder& encoder,
                                  const SequenceLimits& limits);

// The training sequence above. Error if the prompt or the answer is empty.
SequenceLayout generate_layout(const GenerateRow& row);

// One example per row with candidates (rows must outlive the set), objective "generate".
ExampleSet generate_examples(const std::vector<GenerateRow>& rows);

}  // namespace sift::train
