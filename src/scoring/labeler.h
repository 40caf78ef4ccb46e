#pragma once
// Labeler: checkpoint + tokenizer + sift.json, loaded together from one model directory
// (the versioned artifact of design.md). score_row() is the whole scoring contract for one
// (query, items) row in any execution mode.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "scoring/artifact.h"
#include "scoring/modes.h"
#include "scoring/prompt.h"
#include "tokenizer/tokenizer.h"

namespace sift {

struct ScoringOptions {
  ScoringMode mode = ScoringMode::Mis;
  std::optional<double> threshold;           // overrides sift.json's
  std::optional<int64_t> max_request_tokens;  // default: default_max_request_tokens(config)
};

struct RowResult {
  std::vector<std::optional<double>> scores;  // P(yes) per item; generate: 1/0, nullopt = unparsed
  std::vector<std::optional<bool>> labels;    // score >= threshold; nullopt = unparsed
  std::vector<int64_t> unparsed;              // generate: items whose answer was not parsed
  int64_t prefill_tokens = 0;                 // tokens prefilled (generate: the prompts)
  int64_t generated_tokens = 0;               // generate: tokens decoded
  int64_t requests = 0;
};

class Labeler {
 public:
  // Loads dir/config.json + weights, dir/tokenizer.json and dir/sift.json.
  static std::unique_ptr<Labeler> load(const std::filesystem::path& dir);
  Labeler(std::unique_ptr<Model> model, std::unique_ptr<Tokenizer> tokenizer, ScoringArtifact artifact,
          const std::string& where);

  const Model& model() const { return *model_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const ScoringArtifact& artifact() const { return artifact_; }
  const PromptEncoder& prompts() const { return prompts_; }
  AnswerTokenIds answer_ids() const { return answer_ids_; }
  int64_t max_request_tokens(const ScoringOptions& options) const;

  RowResult score_row(std::string_view query, const std::vector<std::string>& items,
                      const ScoringOptions& options) const;

 private:
  std::unique_ptr<Model> model_;
  std::unique_ptr<Tokenizer> tokenizer_;
  ScoringArtifact artifact_;
  PromptEncoder prompts_;
  AnswerTokenIds answer_ids_;
};

}  // namespace sift
