#include "scoring/engine.h"

#include <algorithm>

#include "core/error.h"
#include "scoring/generate_mode.h"
#include "scoring/plan.h"
#include "scoring/readout.h"
#include "scoring/request_sizing.h"
#include "scoring/truncation.h"

namespace sift {

void check_labeler_files(const std::filesystem::path& dir, bool need_sift_json) {
  if (!std::filesystem::is_directory(dir)) fail("{}: not a model directory", dir.string());
  if (!std::filesystem::exists(dir / "tokenizer.json"))
    fail("{}: no tokenizer.json: a labeler needs the tokenizer its weights were trained with. A Hugging Face model "
         "ships it beside the weights (download it with them); `sift tokenizer train` makes one for a new model, and "
         "`sift make-checkpoint --tokenizer FILE` puts one into a random checkpoint",
         dir.string());
  if (need_sift_json && !std::filesystem::exists(dir / "sift.json"))
    fail("{}: no sift.json, the labeler artifact (prompt templates, answer tokens, threshold): a bare checkpoint is "
         "not a labeler yet; make it one with `sift init --model {} --preset qwen3-reranker|chat|compact`",
         dir.string(), dir.string());
}

std::unique_ptr<ScoringEngine> ScoringEngine::load(const std::filesystem::path& dir, WeightStorage weights) {
  check_labeler_files(dir);
  const std::filesystem::path sift_json = dir / "sift.json";
  ScoringArtifact artifact = load_scoring_artifact(sift_json);
  std::unique_ptr<Tokenizer> tokenizer = Tokenizer::load(dir / "tokenizer.json");
  std::unique_ptr<Model> model = Model::load(dir, weights);
  return std::make_unique<ScoringEngine>(std::move(model), std::move(tokenizer), std::move(artifact),
                                   sift_json.string());
}

ScoringEngine::ScoringEngine(std::unique_ptr<Model> model, std::unique_ptr<Tokenizer> tokenizer, ScoringArtifact artifact,
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

double ScoringEngine::threshold(const ScoringOptions& options) const {
  if (options.threshold && !is_probability(*options.threshold))
    fail_option("threshold must be a number in [0, 1], got {}", *options.threshold);
  return options.threshold.value_or(artifact_.threshold);
}

PlanLimits ScoringEngine::limits(const ScoringOptions& options) const {
  threshold(options);
  PlanLimits limits;
  limits.max_request_tokens = options.max_request_tokens.value_or(default_max_request_tokens(model_->config()));
  if (limits.max_request_tokens <= 0)
    fail_option("--max-request-tokens must be positive, got {}", limits.max_request_tokens);
  limits.max_call_tokens = options.max_batch_tokens.value_or(limits.max_request_tokens);
  if (limits.max_call_tokens <= 0) fail_option("--max-batch-tokens must be positive, got {}", limits.max_call_tokens);
  if (options.truncate != Truncate::None && options.mode == ScoringMode::Generate)
    fail_option("--truncate: mode generate scores one whole prompt per request, not a query and its items; truncation "
                "is for mis, independent and prefix");
  return limits;
}

int64_t ScoringEngine::call_tokens(const ScoringOptions& options) const {
  const PlanLimits plan_limits = limits(options);
  if (options.max_batch_tokens) return plan_limits.max_call_tokens;
  return default_call_tokens(model_->config(), plan_limits.max_request_tokens);
}

TokenizedRow ScoringEngine::tokenize(std::string_view query, std::span<const std::string> items) const {
  TokenizedRow row;
  try {
    row.query = prompts_.query_tokens(query);
    row.items = prompts_.item_tokens_batch({items.begin(), items.end()});
  } catch (const Error& e) {
    row = TokenizedRow{};
    row.error = e.what();
  }
  return row;
}

TokenizedRow ScoringEngine::tokenize(std::string_view query, std::span<const std::string> items,
                                     const ScoringOptions& options) const {
  TokenizedRow row = tokenize(query, items);
  if (!row.error.empty() || options.truncate == Truncate::None) return row;
  const PlanLimits plan_limits = limits(options);
  const int64_t limit = std::min({plan_limits.max_request_tokens, plan_limits.max_call_tokens,
                                  model_->config().max_position_embeddings});
  try {
    truncate_to_fit(prompts_, query, items, limit, options.truncate, options.truncation_direction, row);
  } catch (const Error& e) {
    row = TokenizedRow{};
    row.error = e.what();
  }
  return row;
}

std::vector<RowResult> ScoringEngine::score_tokenized(Session& session, std::span<const TokenizedRow> rows,
                                                const ScoringOptions& options) const {
  if (options.mode == ScoringMode::Generate) fail("mode generate scores text rows (score_rows), not token ids");
  const PlanLimits plan_limits = limits(options);
  const double threshold = this->threshold(options);
  std::vector<RowResult> results(rows.size());
  // The rows that can be scored, checked one by one so one bad row fails alone.
  std::vector<TokenRow> runnable;
  std::vector<size_t> runnable_index;
  for (size_t r = 0; r < rows.size(); ++r) {
    try {
      if (!rows[r].error.empty()) fail("{}", rows[r].error);
      check_row_fits(model_->config(), rows[r].tokens(), plan_limits);
      runnable.push_back(rows[r].tokens());
      runnable_index.push_back(r);
    } catch (const Error& e) {
      results[r].error = e.what();
    }
  }
  // Rows grouped into forward calls of about call_tokens prompt tokens (a longer row alone).
  std::vector<ItemScores> scored;
  scored.reserve(runnable.size());
  const int64_t group_budget = call_tokens(options);
  for (size_t begin = 0, end = 0; begin < runnable.size(); begin = end) {
    for (int64_t tokens = 0; end < runnable.size() && (end == begin || tokens + prompt_tokens(runnable[end]) <= group_budget);
         ++end)
      tokens += prompt_tokens(runnable[end]);
    const std::span<const TokenRow> group(runnable.data() + begin, end - begin);
    for (ItemScores& row : score_token_rows(session, options.mode, answer_ids_, group, plan_limits))
      scored.push_back(std::move(row));
  }
  for (size_t k = 0; k < scored.size(); ++k) {
    RowResult& row = results[runnable_index[k]];
    for (size_t i = 0; i < scored[k].scores.size(); ++i) {
      const double score = scored[k].scores[i];
      if (!is_probability(score)) {  // a broken checkpoint, never a silent NaN label
        row = RowResult{};
        row.error = not_a_probability_message(fmt::format("item {}", i), score);
        break;
      }
      row.scores.push_back(score);
      row.labels.push_back(label_of(score, threshold));
    }
    row.prefill_tokens = scored[k].prefill_tokens;
    row.requests = scored[k].requests;
    if (row.error.empty()) row.truncated_tokens = rows[runnable_index[k]].truncated_tokens;
  }
  return results;
}

RowResult ScoringEngine::generate_row(Session& session, const TextRow& row, const ScoringOptions& options) const {
  RowResult result;
  try {
    const std::vector<int32_t> query_ids = prompts_.query_tokens(row.query);
    const std::vector<std::string> items(row.items.begin(), row.items.end());
    GenerateDecisions generated =
        generate_decisions(session, prompts_, artifact_, query_ids, items, limits(options).max_request_tokens);
    for (size_t i = 0; i < items.size(); ++i) {
      const std::optional<bool>& decision = generated.decisions[i];
      if (!decision) result.unparsed.push_back(static_cast<int64_t>(i));
      result.scores.push_back(decision ? std::optional<double>(*decision ? 1.0 : 0.0) : std::nullopt);
      result.labels.push_back(decision);
    }
    result.prefill_tokens = generated.prompt_tokens;
    result.generated_tokens = generated.generated_tokens;
    result.requests = generated.requests;
    result.generated_texts = std::move(generated.answer_texts);
  } catch (const Error& e) {
    result = RowResult{};
    result.error = e.what();
  }
  return result;
}

std::vector<RowResult> ScoringEngine::score_rows(Session& session, std::span<const TextRow> rows,
                                           const ScoringOptions& options) const {
  limits(options);  // a bad option is the caller's error, not every row's
  if (options.mode == ScoringMode::Generate) {
    std::vector<RowResult> results;
    for (const TextRow& row : rows) results.push_back(generate_row(session, row, options));
    return results;
  }
  std::vector<TokenizedRow> tokenized;
  tokenized.reserve(rows.size());
  for (const TextRow& row : rows) tokenized.push_back(tokenize(row.query, row.items, options));
  return score_tokenized(session, tokenized, options);
}

RowResult ScoringEngine::score_row(std::string_view query, const std::vector<std::string>& items,
                             const ScoringOptions& options) const {
  Session session(*model_);
  const TextRow row{query, items};
  RowResult result = std::move(score_rows(session, {&row, 1}, options)[0]);
  if (!result.error.empty()) fail("{}", result.error);
  return result;
}

}  // namespace sift
