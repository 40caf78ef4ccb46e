#pragma once
// sift.json presets: the prompt of a labeler, written for a bare Hugging Face checkpoint by
// `sift init` (and, for `compact`, by `sift train` when it is given no sift.json).
//
//   qwen3-reranker  Qwen3-Reranker's own prompt (its model card): the system instruction
//                   "Judge whether the Document meets the requirements based on the Query and
//                   the Instruct provided. Note that the answer can only be "yes" or "no".",
//                   the user turn "<Instruct>: {instruction}\n<Query>: {query}\n<Document>:
//                   {doc}", then the assistant turn with an empty think block; answers yes/no.
//                   Default instruction: "Given a web search query, retrieve relevant
//                   passages that answer the query".
//   chat            the tokenizer's chat layout (ChatML <|im_start|>/<|im_end|>, with the empty
//                   think block when the tokenizer has <think>; or Llama 3's header tokens):
//                   the instruction as the system turn, "Query: ..." and "Candidate: ..." as the
//                   user turn, answers YES/NO.
//   compact         no special tokens: "Profile:\n{query}\n{instruction}\n" and
//                   "Qualification: {item}\nAnswer:", answers the first of " YES"/" NO",
//                   "YES"/"NO", " Yes"/" No", " yes"/" no", " Y"/" N", "Y"/"N" that is one token
//                   each (so a small trained vocabulary works too). Default instruction: "Does
//                   the profile support the qualification? Answer YES or NO."
//
// The query part ends where the candidate's text begins, so the split between query_template
// and item_template never changes the ids (the contract of scoring/prompt.h). Every preset
// also writes the generate-mode templates in the same layout. The answer words are checked to
// be single tokens of the tokenizer; an Error names the preset and what is missing.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scoring/artifact.h"
#include "tokenizer/tokenizer.h"

namespace sift {

struct PresetOptions {
  std::string preset;                      // qwen3-reranker | chat | compact
  std::optional<std::string> instruction;  // the task text; default: the preset's
  std::optional<std::string> yes, no;      // answer words; default: the preset's
  std::string version;                     // sift.json "version"; default "<preset>-1"
};

const std::vector<std::string>& preset_names();

// The sift.json object of the preset for this tokenizer, validated (it parses as an artifact
// and its answers are single tokens). Field order: format, version, templates, answers,
// threshold 0.5, generate templates, then "preset": {"name", "instruction"}.
nlohmann::ordered_json preset_artifact_json(const Tokenizer& tokenizer, const PresetOptions& options);

// The same, parsed.
ScoringArtifact preset_artifact(const Tokenizer& tokenizer, const PresetOptions& options);

}  // namespace sift
