#pragma once
// ScoringEngine: checkpoint + tokenizer + sift.json, loaded together from one model directory
// (the versioned artifact of docs/scoring-contract.md), and the scoring contract for rows of
// (query, items) in any execution mode. The public sift::Labeler (sift/labeler.h) wraps it;
// sift's own tools use it directly, with sessions of their own. Rows go through a Session: mis and independent rows
// share forward calls (scoring/plan.h), so many short rows cost few calls.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "model/session.h"
#include "scoring/artifact.h"
#include "scoring/modes.h"
#include "scoring/prompt.h"
#include "sift/labeler.h"
#include "tokenizer/tokenizer.h"

namespace sift {

// ScoringOptions and RowResult are public API (sift/labeler.h).

// A row as text, and as prompt ids (error set when it could not be encoded).
struct TextRow {
  std::string_view query;
  std::span<const std::string> items;
};
struct TokenizedRow {
  TokenIds query;
  std::vector<TokenIds> items;
  std::string error;
  int64_t truncated_tokens = 0;  // prompt tokens cut (ScoringOptions::truncate)
  TokenRow tokens() const { return {query, items}; }
};

// A labeler directory's files beyond the checkpoint: tokenizer.json, and sift.json unless
// `need_sift_json` is false. A missing one is an Error saying where it comes from (`sift init`
// writes sift.json; a tokenizer ships with a Hugging Face model, or `sift tokenizer train` /
// `sift make-checkpoint --tokenizer` make one).
void check_labeler_files(const std::filesystem::path& dir, bool need_sift_json = true);

class ScoringEngine {
 public:
  // Loads dir/config.json + weights (held as `weights` says), dir/tokenizer.json and dir/sift.json.
  static std::unique_ptr<ScoringEngine> load(const std::filesystem::path& dir,
                                             WeightStorage weights = WeightStorage::Auto);
  ScoringEngine(std::unique_ptr<Model> model, std::unique_ptr<Tokenizer> tokenizer, ScoringArtifact artifact,
          const std::string& where);

  const Model& model() const { return *model_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const ScoringArtifact& artifact() const { return artifact_; }
  const PromptEncoder& prompts() const { return prompts_; }
  AnswerTokenIds answer_ids() const { return answer_ids_; }
  // The threshold labels use: options.threshold (an OptionError unless is_probability,
  // scoring/readout.h), else sift.json's.
  double threshold(const ScoringOptions& options) const;
  // The options checked (the threshold, the request and call limits: an OptionError naming a
  // bad one) and their request and call limits. Every scoring entry point calls it first.
  PlanLimits limits(const ScoringOptions& options) const;
  // The prompt tokens of rows that share one forward call: --max-batch-tokens when given, else
  // default_call_tokens (request_sizing.h: about 64 MiB of activations). score_tokenized
  // groups rows by it; callers that queue rows take about this much at a time.
  int64_t call_tokens(const ScoringOptions& options) const;

  // The row's prompt ids; an encoding failure (invalid UTF-8) is the row's error. Thread-safe.
  TokenizedRow tokenize(std::string_view query, std::span<const std::string> items) const;
  // The same, cut to fit a request as options.truncate says (scoring/truncation.h) when the
  // row is too long for one; a row that cannot be cut to fit gets its error.
  TokenizedRow tokenize(std::string_view query, std::span<const std::string> items,
                        const ScoringOptions& options) const;

  // Scores rows in order on `session`; a row that cannot be encoded or does not fit gets its
  // error, the others their scores (bit-identical to scoring each row alone).
  std::vector<RowResult> score_rows(Session& session, std::span<const TextRow> rows,
                                    const ScoringOptions& options) const;
  // The same for rows tokenized already (not mode generate, which needs the text).
  std::vector<RowResult> score_tokenized(Session& session, std::span<const TokenizedRow> rows,
                                         const ScoringOptions& options) const;

  // One row on a session of its own; a row error is thrown as an Error.
  RowResult score_row(std::string_view query, const std::vector<std::string>& items,
                      const ScoringOptions& options) const;

 private:
  RowResult generate_row(Session& session, const TextRow& row, const ScoringOptions& options) const;

  std::unique_ptr<Model> model_;
  std::unique_ptr<Tokenizer> tokenizer_;
  ScoringArtifact artifact_;
  PromptEncoder prompts_;
  AnswerTokenIds answer_ids_;
};

}  // namespace sift
