#include "train/train_run.h"

#include <malloc.h>

#include <cmath>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <torch/torch.h>

#include "core/error.h"
#include "core/log.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "formats/score_io.h"
#include "io/atomic_file.h"
#include "io/file_identity.h"
#include "io/path_lock.h"
#include "scoring/artifact.h"
#include "scoring/prompt.h"
#include "scoring/self_test.h"
#include "tokenizer/tokenizer.h"
#include "train/blas_threads.h"
#include "train/default_artifact.h"
#include "train/examples.h"
#include "train/generate_examples.h"
#include "train/labeler_export.h"
#include "train/lm_examples.h"
#include "train/teacher_rows.h"
#include "train/torch_model.h"

namespace sift::train {
namespace {

namespace fs = std::filesystem;

void require_file(const fs::path& path, const char* what) {
  if (!fs::is_regular_file(path)) fail("{} {}: no such file", what, path.string());
}

void check_options(TrainRunOptions& o) {
  const bool from_model = !o.init_model.empty();
  if (from_model && (!o.config.empty() || !o.tokenizer.empty()))
    fail_option("give either --init-model DIR or --config config.json with --tokenizer tokenizer.json, not both");
  if (!from_model && (o.config.empty() || o.tokenizer.empty()))
    fail_option("a fresh model needs both --config config.json and --tokenizer tokenizer.json (or give --init-model DIR)");
  if (o.out.empty()) fail_option("--out is required");
  if (o.dtype != "f32" && o.dtype != "bf16") fail_option("--dtype must be f32 or bf16, got \"{}\"", o.dtype);
  if (o.training.batch_size < 1) fail_option("--batch-size must be at least 1, got {}", o.training.batch_size);
  if (o.training.epochs < 0 || o.training.steps < 0) fail_option("--epochs and --steps must not be negative");
  if (o.training.epochs == 0 && o.training.steps == 0) o.training.epochs = 1;
  if (!(o.training.lr > 0 && std::isfinite(o.training.lr))) fail_option("--lr must be a finite number > 0, got {}", o.training.lr);
  if (!(o.training.warmup >= 0 && o.training.warmup <= 1)) fail_option("--warmup must be in [0, 1], got {}", o.training.warmup);
  if (!(o.training.weight_decay >= 0 && std::isfinite(o.training.weight_decay)))
    fail_option("--weight-decay must be a finite number >= 0, got {}", o.training.weight_decay);
  if (!std::isfinite(o.training.clip)) fail_option("--clip must be a finite number, got {}", o.training.clip);
  if (o.training.save_every < 0) fail_option("--save-every must not be negative");
  if (o.objective != Objective::Label && o.targets == Targets::Scores)
    fail_option("--targets scores is for --objective label: it trains the answer token's score on a teacher's P(YES)");
  if (o.objective != Objective::Label && o.training.pack)
    fail_option("--pack is for --objective label: --objective generate and lm train whole sequences already");
  const EarlyStoppingOptions& stopping = o.training.early_stopping;
  if (stopping.patience < 0) fail_option("--early-stopping must not be negative, got {}", stopping.patience);
  if (stopping.enabled()) {
    if (o.validation.empty()) fail_option("--early-stopping needs --validation: it stops on the validation metric");
    if (stopping.eval_every < 1) fail_option("--early-stopping needs --eval-every N (steps between evaluations), N >= 1");
  }
  if (!(stopping.min_delta >= 0 && std::isfinite(stopping.min_delta)))
    fail_option("--min-delta must be a finite number >= 0, got {}", stopping.min_delta);

  require_file(o.train, "--train");
  if (!o.validation.empty()) require_file(o.validation, "--validation");
  if (!o.artifact.empty()) require_file(o.artifact, "--artifact");
  if (from_model) {
    if (!fs::is_directory(o.init_model)) fail("--init-model {}: not a directory", o.init_model.string());
    require_file(o.init_model / "config.json", "--init-model");
    require_file(o.init_model / "tokenizer.json", "--init-model");
  } else {
    require_file(o.config, "--config");
    require_file(o.tokenizer, "--tokenizer");
  }
  o.training.checkpoint_dir = o.out / "checkpoint";
  if (o.max_sequence_tokens < 1) fail_option("--max-sequence-tokens must be at least 1, got {}", o.max_sequence_tokens);
}

// The files of --out that the run replaces must not be any file it reads.
void refuse_out_over_inputs(const TrainRunOptions& o) {
  std::vector<NamedInput> inputs = {{o.train, "--train"}};
  if (!o.validation.empty()) inputs.push_back({o.validation, "--validation"});
  if (!o.artifact.empty()) inputs.push_back({o.artifact, "--artifact"});
  if (!o.config.empty()) inputs.push_back({o.config, "--config"});
  if (!o.tokenizer.empty()) inputs.push_back({o.tokenizer, "--tokenizer"});
  if (!o.init_model.empty())
    for (NamedInput& input : model_directory_inputs(o.init_model)) inputs.push_back({input.path, "--init-model's file"});
  for (const char* file : {"model.safetensors", "config.json", "tokenizer.json", "sift.json"})
    refuse_output_over_inputs(o.out / file, inputs);
}

// The rows of a JSON-lines file encoded by `encode` (EncodedRows or GenerateRows); every row
// left out is warned about, file:line.
template <typename Encode>
auto read_rows(const fs::path& path, const TrainRunOptions& o, Encode encode, int64_t& left_out) {
  const LabeledRows read = read_labeled_rows(path.string(), o.max_line_bytes);
  auto encoded = encode(read.rows);
  for (const std::vector<RowError>* errors : std::initializer_list<const std::vector<RowError>*>{&read.errors, &encoded.errors})
    for (const RowError& e : *errors) spdlog::warn("{}:{}: {} (row left out)", path.string(), e.line, e.message);
  left_out += static_cast<int64_t>(read.errors.size() + encoded.errors.size());
  if (encoded.rows.empty()) fail("{}: no row is left to train on", path.string());
  return std::move(encoded.rows);
}

// Teacher rows (teacher_rows.h) encoded as label rows with their soft targets; every row left
// out is warned about, file:line, as read_rows does.
std::vector<EncodedRow> read_teacher_training_rows(const fs::path& path, const TrainRunOptions& o,
                                                   const PromptEncoder& encoder, const AnswerTokenIds& answer,
                                                   const SequenceLimits& limits, int64_t& left_out,
                                                   std::optional<double>& threshold) {
  TeacherRows read = read_teacher_rows(path.string(), o.max_line_bytes);
  threshold = common_teacher_threshold(read.rows);
  std::vector<LabeledRow> labeled;
  std::map<int64_t, std::vector<float>> scores;  // by line
  for (TeacherRow& row : read.rows) {
    scores[row.labeled.line] = std::move(row.scores);
    labeled.push_back(std::move(row.labeled));
  }
  EncodedRows encoded = encode_rows(labeled, encoder, answer, limits);
  for (EncodedRow& row : encoded.rows) row.soft = std::move(scores.at(row.line));
  for (const std::vector<RowError>* errors : std::initializer_list<const std::vector<RowError>*>{&read.errors, &encoded.errors})
    for (const RowError& e : *errors) spdlog::warn("{}:{}: {} (row left out)", path.string(), e.line, e.message);
  left_out += static_cast<int64_t>(read.errors.size() + encoded.errors.size());
  if (encoded.rows.empty()) fail("{}: no row is left to train on", path.string());
  return std::move(encoded.rows);
}

// The self-test probes of a trained labeler (scoring/self_test.h): the first rows of its
// training data that read, kTrainingProbeItems items each (built-in texts when none reads).
constexpr size_t kTrainingProbeRows = 3, kTrainingProbeItems = 3;
std::vector<ProbeRow> training_probe_rows(const fs::path& train) {
  std::ifstream in(train);
  std::vector<ProbeRow> rows;
  std::string line;
  while (rows.size() < kTrainingProbeRows && std::getline(in, line)) {
    try {
      ScoringRow row = parse_scoring_row(line);
      if (row.items.empty()) continue;
      row.items.resize(std::min(row.items.size(), kTrainingProbeItems));
      rows.push_back({std::move(row.query), std::move(row.items)});
    } catch (const Error&) {  // a row training left out (warned about already)
    }
  }
  return rows.empty() ? builtin_probe_rows() : rows;
}

ScoringArtifact choose_artifact(const TrainRunOptions& o, const Tokenizer& tokenizer) {
  if (!o.artifact.empty()) return load_scoring_artifact(o.artifact);
  if (!o.init_model.empty() && fs::exists(o.init_model / "sift.json"))
    return load_scoring_artifact(o.init_model / "sift.json");
  return default_artifact(tokenizer, "untrained");
}

void log_token_counts(const fs::path& path, const std::vector<GenerateRow>& rows) {
  int64_t n_pairs = 0, prompt_tokens = 0, answer_tokens = 0;
  for (const GenerateRow& r : rows) {
    n_pairs += static_cast<int64_t>(r.labels.size());
    prompt_tokens += static_cast<int64_t>(r.prompt.size());
    answer_tokens += static_cast<int64_t>(r.answer.size());
  }
  const double pairs = static_cast<double>(std::max<int64_t>(1, n_pairs));
  spdlog::info("{}: {} rows, {} labeled pairs; tokens per pair: {:.1f} packed-generation prompt + {:.1f} answer list "
               "(the loss)", path.string(), rows.size(), n_pairs, prompt_tokens / pairs, answer_tokens / pairs);
}

void log_token_counts(const fs::path& path, const std::vector<EncodedRow>& rows) {
  int64_t n_pairs = 0, single_tokens = 0, packed_tokens = 0;
  for (const EncodedRow& r : rows) {
    packed_tokens += static_cast<int64_t>(r.query.size());
    for (const auto& item : r.items) {
      ++n_pairs;
      single_tokens += static_cast<int64_t>(r.query.size() + item.size());
      packed_tokens += static_cast<int64_t>(item.size());
    }
  }
  const double pairs = static_cast<double>(std::max<int64_t>(1, n_pairs));
  spdlog::info("{}: {} rows, {} labeled pairs; tokens per pair: {:.1f} single-candidate, {:.1f} MIS-packed",
               path.string(), rows.size(), n_pairs, single_tokens / pairs, packed_tokens / pairs);
}

// What a run trains and validates on, read for its objective: the rows (or text) and the example
// sets over them. The example sets refer to the rows, so it stays where it is built.
struct TrainingData {
  std::vector<EncodedRow> rows, validation;                     // label
  std::vector<GenerateRow> generate_rows, generate_validation;  // generate
  TokenStream text, validation_text;                            // lm
  ExampleSet examples, validation_examples;                     // validation_examples: lm only
  std::optional<double> teacher_threshold;                      // targets scores: the training rows' (teacher_rows.h)
  TrainingData() = default;
  TrainingData(const TrainingData&) = delete;
};

// Reads o.train (and o.validation) for o.objective into `data`; rows left out are counted in
// result.rows_left_out, lm's tokens in result.n_train_tokens.
void read_training_data(const TrainRunOptions& o, const Tokenizer& tokenizer, const PromptEncoder& encoder,
                        const AnswerTokenIds& answer, const ModelConfig& config, TrainingData& data,
                        TrainRunResult& result) {
  const SequenceLimits limits{config.max_position_embeddings, o.max_sequence_tokens, o.training.pack};
  switch (o.objective) {
    case Objective::Generate: {
      const auto encode = [&](const std::vector<LabeledRow>& r) { return encode_generate_rows(r, encoder, limits); };
      data.generate_rows = read_rows(o.train, o, encode, result.rows_left_out);
      log_token_counts(o.train, data.generate_rows);
      if (!o.validation.empty()) data.generate_validation = read_rows(o.validation, o, encode, result.rows_left_out);
      data.examples = generate_examples(data.generate_rows);
      return;
    }
    case Objective::Label: {
      if (o.targets == Targets::Scores) {
        std::optional<double> validation_threshold;
        data.rows = read_teacher_training_rows(o.train, o, encoder, answer, limits, result.rows_left_out,
                                               data.teacher_threshold);
        log_token_counts(o.train, data.rows);
        if (!o.validation.empty())
          data.validation = read_teacher_training_rows(o.validation, o, encoder, answer, limits,
                                                       result.rows_left_out, validation_threshold);
        data.examples = label_examples(data.rows, o.training.pack, answer);
        return;
      }
      const auto encode = [&](const std::vector<LabeledRow>& r) { return encode_rows(r, encoder, answer, limits); };
      data.rows = read_rows(o.train, o, encode, result.rows_left_out);
      log_token_counts(o.train, data.rows);
      if (!o.validation.empty()) data.validation = read_rows(o.validation, o, encode, result.rows_left_out);
      data.examples = label_examples(data.rows, o.training.pack);
      return;
    }
    case Objective::Lm: {
      // A sequence never holds more tokens than the model has positions.
      const int64_t sequence_tokens = std::min(o.max_sequence_tokens, config.max_position_embeddings);
      const int32_t eos = document_separator(tokenizer, config.eos_token_id);
      data.text = read_token_stream(o.train, tokenizer, eos, o.max_line_bytes);
      result.n_train_tokens = static_cast<int64_t>(data.text.ids.size());
      data.examples = lm_examples(data.text.ids, sequence_tokens);
      spdlog::info("{}: {} documents, {} tokens (end of document: id {}), {} sequences of up to {} tokens",
                   o.train.string(), data.text.n_documents, data.text.ids.size(), eos, data.examples.sizes.size(),
                   sequence_tokens);
      if (!o.validation.empty()) {
        data.validation_text = read_token_stream(o.validation, tokenizer, eos, o.max_line_bytes);
        data.validation_examples = lm_examples(data.validation_text.ids, sequence_tokens);
      }
      return;
    }
  }
}

// Early stopping's metric on the model as it is (higher is better); none without validation data.
Validator validator(const TrainRunOptions& o, const TorchModel& model, const TrainingData& data,
                    const AnswerTokenIds& answer, double threshold) {
  if (o.validation.empty()) return {};
  switch (o.objective) {
    case Objective::Generate: return [&] { return teacher_forced_agreement(model, data.generate_validation).rate(); };
    case Objective::Label:
      // Scores: teacher agreement at the threshold the student is written with.
      if (o.targets == Targets::Scores)
        return [&, threshold] { return agreement(model, data.validation, answer, threshold).rate(); };
      return [&] { return best_threshold_agreement(model, data.validation, answer).agreement; };
    case Objective::Lm: return [&] { return -mean_loss(model, data.validation_examples); };
  }
  return {};
}

}  // namespace

TrainRunResult run_training(TrainRunOptions o) {
  check_options(o);
  // Every step allocates and frees the same large activation tensors. By default glibc serves
  // each one over its mmap threshold with a fresh mmap and trims freed heap tops back to the
  // kernel, so every step faults its pages in again. Serve them from the heap (up to glibc's
  // largest threshold, 32 MiB) and keep up to 1 GiB of freed heap for the next step: 1.9x
  // the pairs/s of --objective generate and 2.1x of --pack on the 2-core VM (README, sift train).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  refuse_out_over_inputs(o);
  create_output_directory(o.out, "--out");
  const PathLock lock(o.out);
  const int threads = resolve_threads(o.threads);
  at::set_num_threads(threads);
  set_blas_threads(threads);
  set_n_threads(threads);
  torch::manual_seed(o.training.seed);

  const bool from_model = !o.init_model.empty();
  const fs::path tokenizer_path = from_model ? o.init_model / "tokenizer.json" : o.tokenizer;
  TorchModel model = from_model ? TorchModel::load_from_checkpoint(o.init_model)
                                : TorchModel::fresh(load_model_config(o.config), o.training.seed);
  const auto tokenizer = Tokenizer::load(tokenizer_path);
  if (tokenizer->vocab_size() > model.config().vocab_size)
    fail("{}: the tokenizer has {} tokens but the model's vocab_size is {}", tokenizer_path.string(),
         tokenizer->vocab_size(), model.config().vocab_size);

  ScoringArtifact artifact = choose_artifact(o, *tokenizer);
  const AnswerTokenIds answer = resolve_answer_tokens(*tokenizer, artifact, "sift.json");
  const PromptEncoder encoder(*tokenizer, artifact);
  if (o.objective != Objective::Lm)
    spdlog::info("answer tokens: \"{}\" = {}, \"{}\" = {}", artifact.yes, answer.yes, artifact.no, answer.no);

  TrainRunResult result;
  TrainingData data;
  read_training_data(o, *tokenizer, encoder, answer, model.config(), data, result);
  if (o.strict && result.rows_left_out > 0)
    fail("{} left out (the warnings above say why); --strict makes that a failed run, before any training",
         result.rows_left_out == 1 ? std::string("1 row was") : fmt::format("{} rows were", result.rows_left_out));

  const bool soft = o.objective == Objective::Label && o.targets == Targets::Scores;
  if (soft) {
    result.threshold = data.teacher_threshold.value_or(0.5);
    spdlog::info("distillation: the teacher's P(YES) as soft targets; the student's threshold (teacher agreement is "
                 "read there): {} ({})", result.threshold,
                 data.teacher_threshold ? "the threshold the teacher's rows name"
                                        : "0.5: the rows name no common threshold");
    o.training.validation_name = "teacher agreement";
  }
  Trainer trainer(model, std::move(data.examples), o.training, validator(o, model, data, answer, result.threshold));
  spdlog::info("training {} steps of {} {}{}, {} threads", trainer.total_steps(), o.training.batch_size,
               o.objective == Objective::Lm ? "tokens" : "pairs",
               o.objective == Objective::Generate ? " (packed-generation rows)"
               : o.training.pack                  ? " (MIS-packed rows)"
                                                  : "",
               threads);
  ProgressReporter progress = ProgressReporter::to_stderr("sift train", "steps", trainer.total_steps(), o.quiet);
  result.summary = trainer.run(-1, &progress);
  const EarlyStopping& stopping = trainer.early_stopping();
  result.evaluations = stopping.history();
  result.weights_step = trainer.step();
  if (stopping.has_best()) {
    trainer.restore_best();
    result.weights_step = stopping.best_step();
    result.best = Evaluation{stopping.best_step(), stopping.best_value()};
  }
  progress.finish(fmt::format("step {} of {}{}, loss {:.4f}, {:.1f} {}/s; {} left out", result.summary.step,
                              trainer.total_steps(),
                              stopping.has_best() ? fmt::format(" (best: step {})", stopping.best_step()) : "",
                              result.summary.loss_ema, result.summary.pairs_per_second(),
                              o.objective == Objective::Lm ? "target tokens" : "pairs",
                              result.rows_left_out == 1 ? std::string("1 row") : fmt::format("{} rows", result.rows_left_out)));
  result.total_steps = trainer.total_steps();

  const char* kind = o.objective == Objective::Generate ? "generate-" : o.objective == Objective::Lm ? "lm-" : "";
  artifact.threshold = result.threshold;
  artifact.version = fmt::format("trained-{}seed{}-step{}", kind, o.training.seed, result.weights_step);
  write_labeler(o.out, model, o.dtype == "bf16" ? DType::BF16 : DType::F32, tokenizer_path, artifact);
  write_self_test(o.out, o.objective == Objective::Lm ? builtin_probe_rows() : training_probe_rows(o.train));
  if (!data.validation.empty()) result.validation = agreement(model, data.validation, answer, result.threshold);
  if (soft && !data.validation.empty()) {
    const std::vector<std::vector<float>> scores = score_rows(model, data.validation, answer);
    double gap = 0;
    int64_t n = 0;
    for (size_t r = 0; r < scores.size(); ++r)
      for (size_t i = 0; i < scores[r].size(); ++i, ++n) gap += std::abs(scores[r][i] - data.validation[r].soft[i]);
    result.validation_score_gap = n > 0 ? gap / static_cast<double>(n) : 0.0;
    spdlog::info("{}: teacher agreement {:.4f} at threshold {} ({} pairs), mean |student - teacher| P(YES) {:.4f}",
                 o.validation.string(), result.validation->rate(), result.threshold, result.validation->n_pairs,
                 *result.validation_score_gap);
  }
  if (!data.generate_validation.empty()) result.validation = teacher_forced_agreement(model, data.generate_validation);
  if (!data.validation_examples.sizes.empty()) result.validation_loss = mean_loss(model, data.validation_examples);
  return result;
}

}  // namespace sift::train
