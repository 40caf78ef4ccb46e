#pragma once
// LoadedLabeler: checkpoint + tokenizer + sift.json, loaded together from one model directory
// (the versioned artifact of docs/scoring-contract.md): the model, shared and read-only, the
// prompt contract, the options' checks and limits, and the rows' jobs for the scheduler
// (scoring/scheduler.h). The public sift::Labeler (sift/labeler.h) is one of these behind a
// reference count; its contexts are engines (scoring/engine.h) on the one shared model.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "scoring/artifact.h"
#include "scoring/engine.h"
#include "scoring/modes.h"
#include "scoring/prompt.h"
#include "scoring/scheduler.h"
#include "sift/labeler.h"
#include "tokenizer/tokenizer.h"

namespace sift {

// ScoringOptions and RowResult are public API (sift/labeler.h).

// A row as text; as prompt ids it is a TokenizedRow (public: sift/labeler.h).
struct TextRow {
  std::string_view query;
  std::span<const std::string> items;
};
inline TokenRow token_row(const TokenizedRow& row) { return {row.query, row.items}; }

// A labeler directory's files beyond the checkpoint: tokenizer.json, and sift.json unless
// `need_sift_json` is false. A missing one is an Error saying where it comes from (`sift init`
// writes sift.json; a tokenizer ships with a Hugging Face model, or `sift tokenizer train` /
// `sift make-checkpoint --tokenizer` make one).
void check_labeler_files(const std::filesystem::path& dir, bool need_sift_json = true);

class LoadedLabeler {
 public:
  // Loads dir/config.json + weights (held as `weights` says), dir/tokenizer.json and dir/sift.json.
  static std::unique_ptr<LoadedLabeler> load(const std::filesystem::path& dir,
                                             WeightStorage weights = WeightStorage::Auto);
  // The same but the weights: config.json, tokenizer.json and sift.json, for rows scored by
  // engines elsewhere (remote/): it tokenizes, plans and checks as the loaded labeler does,
  // and has no model() to run. `calls_in_flight` is how many calls' worth of requests its
  // engines take at once (call_tokens() is that many calls).
  static std::unique_ptr<LoadedLabeler> load_without_weights(const std::filesystem::path& dir,
                                                             int64_t calls_in_flight);
  LoadedLabeler(std::shared_ptr<const Model> model, std::unique_ptr<Tokenizer> tokenizer, ScoringArtifact artifact,
                const std::string& where);

  // The model; an Error for a labeler loaded without its weights (nothing here runs it).
  const Model& model() const;
  const ModelConfig& config() const { return config_; }
  const std::shared_ptr<const Model>& shared_model() const { return model_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const ScoringArtifact& artifact() const { return artifact_; }
  // Its sift.json, for messages.
  const std::string& where() const { return where_; }
  const PromptEncoder& prompts() const { return prompts_; }
  AnswerTokenIds answer_ids() const { return answer_ids_; }
  // The threshold labels use: options.threshold (an OptionError unless is_probability,
  // scoring/readout.h), else sift.json's.
  double threshold(const ScoringOptions& options) const;
  // The options checked (the threshold, the request and call limits: an OptionError naming a
  // bad one) and their request and call limits. Every scoring entry point calls it first.
  PlanLimits limits(const ScoringOptions& options) const;
  // The prompt tokens of rows that share one forward call: --max-batch-tokens when given, else
  // default_call_tokens (request_sizing.h: about 64 MiB of activations); a longer request runs
  // alone. Callers that queue rows take about this much at a time.
  int64_t call_tokens(const ScoringOptions& options) const;
  // What the scheduler plans these options' rows with: requests of at most limits().request_limit()
  // tokens, calls of call_tokens(), packed generation for mode generate; `cache` (when given
  // and on) reuses query keys across calls.
  SchedulerSettings scheduler_settings(const ScoringOptions& options, PrefixCache* cache = nullptr) const;

  // The row's prompt ids; an encoding failure (invalid UTF-8) is the row's error. Thread-safe.
  TokenizedRow tokenize(std::string_view query, std::span<const std::string> items) const;
  // The same, cut to fit a request as options.truncate says (scoring/truncation.h) when the
  // row is too long for one; a row that cannot be cut to fit gets its error.
  TokenizedRow tokenize(std::string_view query, std::span<const std::string> items,
                        const ScoringOptions& options) const;

  // Scores rows in order on `engine`; a row that cannot be encoded or does not fit gets its
  // error, the others their scores (bit-identical to scoring each row alone).
  std::vector<RowResult> score_rows(Engine& engine, std::span<const TextRow> rows, const ScoringOptions& options,
                                    PrefixCache* cache = nullptr) const;
  // The same for rows tokenized already (not mode generate, which needs the text).
  std::vector<RowResult> score_tokenized(Engine& engine, std::span<const TokenizedRow> rows,
                                         const ScoringOptions& options, PrefixCache* cache = nullptr) const;
  // The same on a session of the caller's.
  std::vector<RowResult> score_rows(Session& session, std::span<const TextRow> rows,
                                    const ScoringOptions& options) const;
  std::vector<RowResult> score_tokenized(Session& session, std::span<const TokenizedRow> rows,
                                         const ScoringOptions& options) const;

  // One row on an engine of its own; a row error is thrown as an Error.
  RowResult score_row(std::string_view query, const std::vector<std::string>& items,
                      const ScoringOptions& options) const;

 private:
  std::vector<RowResult> run(Engine& engine, std::vector<ScoringJob>& jobs, const ScoringOptions& options,
                             PrefixCache* cache) const;

  LoadedLabeler(ModelConfig config, std::unique_ptr<Tokenizer> tokenizer, ScoringArtifact artifact,
                const std::string& where, int64_t calls_in_flight);

  std::shared_ptr<const Model> model_;  // null: loaded without weights
  ModelConfig config_;
  int64_t calls_in_flight_ = 1;
  std::unique_ptr<Tokenizer> tokenizer_;
  ScoringArtifact artifact_;
  std::string where_;
  PromptEncoder prompts_;
  AnswerTokenIds answer_ids_;
};

}  // namespace sift
