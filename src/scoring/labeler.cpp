#include "scoring/labeler.h"

#include "core/error.h"
#include "scoring/generate_mode.h"
#include "scoring/readout.h"
#include "scoring/request_sizing.h"

namespace sift {

std::unique_ptr<Labeler> Labeler::load(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) fail("{}: not a model directory", dir.string());
  const std::filesystem::path sift_json = dir / "sift.json";
  if (!std::filesystem::exists(sift_json))
    fail("{}: no sift.json, the labeler artifact (prompt templates, answer tokens, threshold); a bare "
         "checkpoint is not a labeler", dir.string());
  ScoringArtifact artifact = load_scoring_artifact(sift_json);
  std::unique_ptr<Tokenizer> tokenizer = Tokenizer::load(dir / "tokenizer.json");
  std::unique_ptr<Model> model = Model::load(dir);
  return std::make_unique<Labeler>(std::move(model), std::move(tokenizer), std::move(artifact),
                                   sift_json.string());
}

Labeler::Labeler(std::unique_ptr<Model> model, std::unique_ptr<Tokenizer> tokenizer, ScoringArtifact artifact,
                 const std::string& where)
    : model_(std::move(model)),
      tokenizer_(std::move(tokenizer)),
      artifact_(std::move(artifact)),
      prompts_(*tokenizer_, artifact_),
      answer_ids_(resolve_answer_tokens(*tokenizer_, artifact_, where)) {
  const int64_t vocab_size = model_->config().vocab_size;
  for (auto [field, id] : {std::pair{"yes", answer_ids_.yes}, std::pair{"no", answer_ids_.no}})
    if (id < 0 || id >= vocab_size)
      fail("{}: field \"{}\" is token {}, outside the model's vocabulary of {}", where, field, id, vocab_size);
}

int64_t Labeler::max_request_tokens(const ScoringOptions& options) const {
  if (options.max_request_tokens) {
    if (*options.max_request_tokens <= 0)
      fail("--max-request-tokens must be positive, got {}", *options.max_request_tokens);
    return *options.max_request_tokens;
  }
  return default_max_request_tokens(model_->config());
}

RowResult Labeler::score_row(std::string_view query, const std::vector<std::string>& items,
                             const ScoringOptions& options) const {
  const double threshold = options.threshold.value_or(artifact_.threshold);
  const int64_t request_limit = max_request_tokens(options);
  const std::vector<int32_t> query_ids = prompts_.query_tokens(query);
  RowResult row;

  if (options.mode == ScoringMode::Generate) {
    GenerateDecisions generated = generate_decisions(*model_, prompts_, artifact_, query_ids, items, request_limit);
    for (size_t i = 0; i < items.size(); ++i) {
      const std::optional<bool>& decision = generated.decisions[i];
      if (!decision) row.unparsed.push_back(static_cast<int64_t>(i));
      row.scores.push_back(decision ? std::optional<double>(*decision ? 1.0 : 0.0) : std::nullopt);
      row.labels.push_back(decision);
    }
    row.prefill_tokens = generated.prompt_tokens;
    row.generated_tokens = generated.generated_tokens;
    row.requests = generated.requests;
    return row;
  }

  const std::vector<TokenIds> item_ids = prompts_.item_tokens_batch(items);
  ItemScores scored = score_items(options.mode, *model_, answer_ids_, query_ids, item_ids, request_limit);
  for (double score : scored.scores) {
    row.scores.push_back(score);
    row.labels.push_back(label_of(score, threshold));
  }
  row.prefill_tokens = scored.prefill_tokens;
  row.requests = scored.requests;
  return row;
}

}  // namespace sift
