#pragma once
// Training data: rows of the synthetic JSONL (`sift synth`), the `sift score` input format
// plus the reference labels,
//   {"id": ..., "query": "...", "items": [{"id": ..., "text": "..."}, ...], "labels": [0, 1, ...], "truth": [...]}
// and their prompts under the scoring contract (scoring/prompt.h): the prompt of item i is
// query_tokens(query) ++ item_tokens(item_i), exactly what scoring runs, and the training
// target at its last token is the YES id for label 1, the NO id for label 0. Only the
// reference labels ("labels") are read; the clean "truth" is for evaluation elsewhere.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "scoring/prompt.h"

namespace sift::train {

struct LabeledRow {
  std::string query;
  std::vector<std::string> items;
  std::vector<int8_t> labels;  // 0 or 1, one per item
};

// One JSONL line; Error naming what is wrong (a missing or non-0/1 label, a count that
// differs from the items).
LabeledRow parse_labeled_row(std::string_view line);

// Every non-blank line of the file; an Error names "file:line" and the problem.
std::vector<LabeledRow> read_labeled_rows(const std::filesystem::path& path);

// A row as token ids: the shared query part, each item part, and each item's target id.
struct EncodedRow {
  std::vector<int32_t> query;
  std::vector<std::vector<int32_t>> items;
  std::vector<int32_t> targets;  // answer.yes or answer.no
  std::vector<int8_t> labels;
};

std::vector<EncodedRow> encode_rows(const std::vector<LabeledRow>& rows, const PromptEncoder& encoder,
                                    const AnswerTokenIds& answer);

}  // namespace sift::train
