#pragma once
// Training data: labeled rows (workflows/labeled_rows.h: the `sift score` input format plus
// the reference "labels", 0/1 or false/true, read by the same reader as calibration and
// evaluation), and their prompts under the scoring contract (scoring/prompt.h): the prompt of
// item i is query_tokens(query) ++ item_tokens(item_i), exactly what scoring runs, and the
// training target at its last token is the YES id for label 1, the NO id for label 0. Only
// the reference labels are trained on; the clean "truth" is for evaluation elsewhere.
//
// Length: a row is left out (its RowError) when an item's prompt Lq + Li is longer than the
// model's positions (max_position_embeddings), or when one of its training sequences is
// longer than max_sequence_tokens: Lq + Li per item, or Lq + sum Li for a packed row. The
// attention of a sequence of T tokens holds heads x T^2 scores per layer, so this cap bounds
// a step's memory at batch_size sequences of at most max_sequence_tokens.
#include <cstdint>
#include <vector>

#include "scoring/prompt.h"
#include "workflows/labeled_rows.h"

namespace sift::train {

inline constexpr int64_t kDefaultMaxSequenceTokens = 4096;

struct SequenceLimits {
  int64_t max_positions = 0;  // the model's max_position_embeddings
  int64_t max_sequence_tokens = kDefaultMaxSequenceTokens;
  bool pack = false;
};

// A row as token ids: the shared query part, each item part, and each item's target id.
struct EncodedRow {
  int64_t line = 0;  // in the input
  std::vector<int32_t> query;
  std::vector<std::vector<int32_t>> items;
  std::vector<int32_t> targets;  // answer.yes or answer.no
  std::vector<int8_t> labels;
  std::vector<float> soft;       // --targets scores: the teacher's P(YES) per item (teacher_rows.h); else empty
};

struct EncodedRows {
  std::vector<EncodedRow> rows;
  std::vector<RowError> errors;  // rows left out: not encodable (invalid UTF-8) or too long
};

EncodedRows encode_rows(const std::vector<LabeledRow>& rows, const PromptEncoder& encoder, const AnswerTokenIds& answer,
                        const SequenceLimits& limits);

}  // namespace sift::train
