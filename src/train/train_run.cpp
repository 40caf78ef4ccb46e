#include "train/train_run.h"

#include <malloc.h>

#include <cmath>

#include <fmt/format.h>
#include <torch/torch.h>

#include "core/error.h"
#include "core/log.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "io/atomic_file.h"
#include "io/file_identity.h"
#include "io/path_lock.h"
#include "scoring/artifact.h"
#include "scoring/prompt.h"
#include "tokenizer/tokenizer.h"
#include "train/default_artifact.h"
#include "train/examples.h"
#include "train/generate_examples.h"
#include "train/labeler_export.h"
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
  if (o.objective == Objective::Generate && o.training.pack)
    fail_option("--pack is for --objective label: --objective generate trains one sequence per row already");

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
  const int threads = o.threads > 0 ? o.threads : default_n_threads();
  at::set_num_threads(threads);
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
  spdlog::info("answer tokens: \"{}\" = {}, \"{}\" = {}", artifact.yes, answer.yes, artifact.no, answer.no);

  const SequenceLimits limits{model.config().max_position_embeddings, o.max_sequence_tokens, o.training.pack};
  TrainRunResult result;
  const bool generate = o.objective == Objective::Generate;
  // The rows of both objectives; only the chosen one's are read. The example set refers to them.
  std::vector<EncodedRow> rows, validation;
  std::vector<GenerateRow> generate_rows, generate_validation;
  const auto encode_label = [&](const std::vector<LabeledRow>& r) { return encode_rows(r, encoder, answer, limits); };
  const auto encode_generate = [&](const std::vector<LabeledRow>& r) { return encode_generate_rows(r, encoder, limits); };
  ExampleSet examples;
  if (generate) {
    generate_rows = read_rows(o.train, o, encode_generate, result.rows_left_out);
    log_token_counts(o.train, generate_rows);
    if (!o.validation.empty()) generate_validation = read_rows(o.validation, o, encode_generate, result.rows_left_out);
    examples = generate_examples(generate_rows);
  } else {
    rows = read_rows(o.train, o, encode_label, result.rows_left_out);
    log_token_counts(o.train, rows);
    if (!o.validation.empty()) validation = read_rows(o.validation, o, encode_label, result.rows_left_out);
    examples = label_examples(rows, o.training.pack);
  }
  if (o.strict && result.rows_left_out > 0)
    fail("{} left out (the warnings above say why); --strict makes that a failed run, before any training",
         result.rows_left_out == 1 ? std::string("1 row was") : fmt::format("{} rows were", result.rows_left_out));

  Trainer trainer(model, std::move(examples), o.training);
  spdlog::info("training {} steps of {} pairs{}, {} threads", trainer.total_steps(), o.training.batch_size,
               generate ? " (packed-generation rows)" : o.training.pack ? " (MIS-packed rows)" : "", threads);
  ProgressReporter progress = ProgressReporter::to_stderr("sift train", "steps", trainer.total_steps(), o.quiet);
  result.summary = trainer.run(-1, &progress);
  progress.finish(fmt::format("step {} of {}, loss {:.4f}, {:.1f} pairs/s; {} left out", result.summary.step,
                              trainer.total_steps(), result.summary.loss_ema, result.summary.pairs_per_second(),
                              result.rows_left_out == 1 ? std::string("1 row") : fmt::format("{} rows", result.rows_left_out)));
  result.total_steps = trainer.total_steps();

  artifact.threshold = 0.5;
  artifact.version =
      fmt::format("trained-{}seed{}-step{}", generate ? "generate-" : "", o.training.seed, trainer.step());
  write_labeler(o.out, model, o.dtype == "bf16" ? DType::BF16 : DType::F32, tokenizer_path, artifact);
  if (!validation.empty()) result.validation = agreement(model, validation, answer, 0.5);
  if (!generate_validation.empty()) result.validation = teacher_forced_agreement(model, generate_validation);
  return result;
}

}  // namespace sift::train
