#include "scoring/loaded_labeler.h"

#include <algorithm>

#include "core/error.h"
#include "core/log.h"
#include "io/labeler_files.h"
#include "scoring/long_items.h"
#include "scoring/readout.h"
#include "scoring/request_sizing.h"
#include "scoring/truncation.h"

namespace sift {

void check_labeler_files(const std::filesystem::path& dir, bool need_sift_json) {
  check_model_directory(dir);
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

std::unique_ptr<LoadedLabeler> LoadedLabeler::load(const std::filesystem::path& dir, WeightStorage weights) {
  ensure_logging();  // an embedding program's stdout is its own: the load's warnings go to stderr
  check_labeler_files(dir);
  const std::filesystem::path sift_json = dir / "sift.json";
  ScoringArtifact artifact = load_scoring_artifact(sift_json);
  std::unique_ptr<Tokenizer> tokenizer = Tokenizer::load(dir / "tokenizer.json");
  std::shared_ptr<const Model> model = Model::load(dir, weights);
  return std::make_unique<LoadedLabeler>(std::move(model), std::move(tokenizer), std::move(artifact),
                                         sift_json.string());
}

std::unique_ptr<LoadedLabeler> LoadedLabeler::load_without_weights(const std::filesystem::path& dir,
                                                                   int64_t calls_in_flight) {
  ensure_logging();
  check_labeler_files(dir);
  const std::filesystem::path sift_json = dir / "sift.json";
  ScoringArtifact artifact = load_scoring_artifact(sift_json);
  std::unique_ptr<Tokenizer> tokenizer = Tokenizer::load(dir / "tokenizer.json");
  ModelConfig config = load_model_config(dir / "config.json");
  return std::unique_ptr<LoadedLabeler>(new LoadedLabeler(std::move(config), std::move(tokenizer), std::move(artifact),
                                                          sift_json.string(), calls_in_flight));
}

LoadedLabeler::LoadedLabeler(std::shared_ptr<const Model> model, std::unique_ptr<Tokenizer> tokenizer,
                             ScoringArtifact artifact, const std::string& where)
    : LoadedLabeler(model->config(), std::move(tokenizer), std::move(artifact), where, 1) {
  model_ = std::move(model);
}

LoadedLabeler::LoadedLabeler(ModelConfig config, std::unique_ptr<Tokenizer> tokenizer, ScoringArtifact artifact,
                             const std::string& where, int64_t calls_in_flight)
    : config_(std::move(config)),
      calls_in_flight_(std::max<int64_t>(1, calls_in_flight)),
      tokenizer_(std::move(tokenizer)),
      artifact_(std::move(artifact)),
      where_(where),
      prompts_(*tokenizer_, artifact_),
      answer_ids_(resolve_answer_tokens(*tokenizer_, artifact_, where)) {
  const int64_t vocab_size = config_.vocab_size;
  for (auto [field, id] : {std::pair{"yes", answer_ids_.yes}, std::pair{"no", answer_ids_.no}})
    if (id < 0 || id >= vocab_size)
      fail("{}: field \"{}\" is token {}, outside the model's vocabulary of {}", where, field, id, vocab_size);
}

const Model& LoadedLabeler::model() const {
  if (!model_) fail("the labeler was loaded without its weights (its rows are scored by engines elsewhere): there is "
                    "no model here to run");
  return *model_;
}

double LoadedLabeler::threshold(const ScoringOptions& options) const {
  if (options.threshold && !is_probability(*options.threshold))
    fail_option("threshold must be a number in [0, 1], got {}", *options.threshold);
  return options.threshold.value_or(artifact_.threshold);
}

PlanLimits LoadedLabeler::limits(const ScoringOptions& options) const {
  threshold(options);
  PlanLimits limits;
  limits.max_request_tokens = options.max_request_tokens.value_or(default_max_request_tokens(config_));
  if (limits.max_request_tokens <= 0)
    fail_option("--max-request-tokens must be positive, got {}", limits.max_request_tokens);
  limits.max_call_tokens = options.max_batch_tokens.value_or(limits.max_request_tokens);
  if (limits.max_call_tokens <= 0) fail_option("--max-batch-tokens must be positive, got {}", limits.max_call_tokens);
  if (options.truncate != Truncate::None && options.mode == ScoringMode::Generate)
    fail_option("--truncate: mode generate scores one whole prompt per request, not a query and its items; truncation "
                "is for mis, independent and prefix");
  long_item_rule(options, limits.request_limit(config_.max_position_embeddings));
  return limits;
}

int64_t LoadedLabeler::call_tokens(const ScoringOptions& options) const {
  const PlanLimits plan_limits = limits(options);
  const int64_t one_call = options.max_batch_tokens ? plan_limits.max_call_tokens
                                                   : default_call_tokens(config_, plan_limits.max_request_tokens);
  return one_call * calls_in_flight_;
}

SchedulerSettings LoadedLabeler::scheduler_settings(const ScoringOptions& options, PrefixCache* cache) const {
  const PlanLimits plan_limits = limits(options);
  SchedulerSettings settings;
  settings.request_tokens = plan_limits.request_limit();
  settings.call_tokens = call_tokens(options);
  settings.max_positions = config_.max_position_embeddings;
  settings.reuse_queries = cache != nullptr && cache->enabled();
  settings.cache = cache;
  settings.generate = GenerateSetup{&prompts_, &artifact_, plan_limits.max_request_tokens};
  return settings;
}

TokenizedRow LoadedLabeler::tokenize(std::string_view query, std::span<const std::string> items) const {
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

TokenizedRow LoadedLabeler::tokenize(std::string_view query, std::span<const std::string> items,
                                     const ScoringOptions& options) const {
  TokenizedRow row = tokenize(query, items);
  if (!row.error.empty() || options.mode == ScoringMode::Generate) return row;
  const PlanLimits plan_limits = limits(options);
  const int64_t limit = plan_limits.request_limit(config_.max_position_embeddings);
  try {
    if (options.truncate == Truncate::Query)
      truncate_query_to_fit(prompts_, query, limit, options.truncation_direction, row);
    apply_long_item_rule(prompts_, items, limit, long_item_rule(options, limit), row, plan_limits.flags);
  } catch (const Error& e) {
    row = TokenizedRow{};
    row.error = e.what();
  }
  return row;
}

std::vector<RowResult> LoadedLabeler::run(Engine& engine, std::vector<ScoringJob>& jobs, const ScoringOptions& options,
                                          PrefixCache* cache) const {
  std::vector<ScoringJob*> runnable;
  for (ScoringJob& job : jobs)
    if (job.result.error.empty()) runnable.push_back(&job);
  run_jobs(engine, runnable, scheduler_settings(options, cache));
  std::vector<RowResult> results;
  results.reserve(jobs.size());
  for (ScoringJob& job : jobs) {
    RowResult& result = results.emplace_back(std::move(job.result));
    if (!result.error.empty()) result.scores.clear();  // a failed row has its error only (and its usage)
  }
  return results;
}

std::vector<RowResult> LoadedLabeler::score_tokenized(Engine& engine, std::span<const TokenizedRow> rows,
                                                      const ScoringOptions& options, PrefixCache* cache) const {
  if (options.mode == ScoringMode::Generate) fail("mode generate scores text rows (score_rows), not token ids");
  const double threshold = this->threshold(options);
  std::vector<ScoringJob> jobs(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    ScoringJob& job = jobs[r];
    job.mode = options.mode;
    job.readout = Readout::yes_no(answer_ids_);
    job.label_by(artifact_, threshold);
    if (!rows[r].error.empty()) {  // left out of the forward calls
      job.result.error = rows[r].error;
      continue;
    }
    job.query = rows[r].query;
    job.items = rows[r].items;
  }
  std::vector<RowResult> results = run(engine, jobs, options, cache);
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!results[r].error.empty()) continue;
    results[r].truncated_tokens = rows[r].truncated_tokens;
    fold_windows(rows[r].windows, rows[r].window_tokens, rows[r].window_stride, results[r]);
  }
  return results;
}

std::vector<RowResult> LoadedLabeler::score_rows(Engine& engine, std::span<const TextRow> rows,
                                                 const ScoringOptions& options, PrefixCache* cache) const {
  limits(options);  // a bad option is the caller's error, not every row's
  if (options.mode != ScoringMode::Generate) {
    std::vector<TokenizedRow> tokenized;
    tokenized.reserve(rows.size());
    for (const TextRow& row : rows) tokenized.push_back(tokenize(row.query, row.items, options));
    return score_tokenized(engine, tokenized, options, cache);
  }
  std::vector<ScoringJob> jobs(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    jobs[r].mode = ScoringMode::Generate;
    jobs[r].query_text = rows[r].query;
    jobs[r].item_texts.assign(rows[r].items.begin(), rows[r].items.end());
  }
  return run(engine, jobs, options, cache);
}

std::vector<RowResult> LoadedLabeler::score_rows(Session& session, std::span<const TextRow> rows,
                                                 const ScoringOptions& options) const {
  LocalEngine engine(session);
  return score_rows(engine, rows, options);
}

std::vector<RowResult> LoadedLabeler::score_tokenized(Session& session, std::span<const TokenizedRow> rows,
                                                      const ScoringOptions& options) const {
  LocalEngine engine(session);
  return score_tokenized(engine, rows, options);
}

RowResult LoadedLabeler::score_row(std::string_view query, const std::vector<std::string>& items,
                                   const ScoringOptions& options) const {
  LocalEngine engine(*model_);
  const TextRow row{query, items};
  RowResult result = std::move(score_rows(engine, {&row, 1}, options)[0]);
  if (!result.error.empty()) fail("{}", result.error);
  return result;
}

}  // namespace sift
