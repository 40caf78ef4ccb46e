// sift train (the sift-train executable, which `sift train` runs): fine-tuning of a labeler on
// its answer token alone (paper §3.2), or of the packed-generation baseline (--objective generate, §2.4),
// or pretraining a base on plain text (--objective lm), with libtorch, writing a Hugging Face
// directory plus sift.json that `sift score` uses directly and `--init-model` starts from. The
// run itself is train/train_run.h; this file is its flags.
#ifdef SIFT_HAVE_TORCH
#include <map>
#include <memory>
#include <string>

#include "apps/cli.h"
#include "apps/command.h"
#include "apps/max_line_bytes_option.h"
#include "core/blas_kernels.h"
#include "train/train_run.h"

SIFT_COMMAND(train) {
  auto o = std::make_shared<sift::train::TrainRunOptions>();
  sift::train::TrainOptions& t = o->training;
  CLI::App* cmd = app.add_subcommand("train", "Fine-tune a labeler (libtorch): on the answer token of each candidate (--objective label, "
                                     "the default) or on the answer list of packed generation (--objective generate); "
                                     "or pretrain a base on plain text (--objective lm)");
  cmd->add_option("--train", o->train,
                  "training JSONL (sift synth rows with \"labels\"); for --objective lm, text: {\"text\": ...} JSON "
                  "lines or a text file (a document per line)")
      ->required();
  cmd->add_option("--validation", o->validation,
                  "validation rows (or text for lm): agreement (lm: loss) printed at the end, and what "
                  "--early-stopping watches");
  cmd->add_option("--out", o->out, "output directory (Hugging Face layout + sift.json; checkpoint/ inside)")->required();
  cmd->add_option("--init-model", o->init_model, "start from this Hugging Face directory (with tokenizer.json)");
  cmd->add_option("--config", o->config, "start from fresh weights of this config.json");
  cmd->add_option("--tokenizer", o->tokenizer, "tokenizer.json (with --config)");
  cmd->add_option("--artifact", o->artifact, "sift.json with the prompt templates and answer tokens");
  cmd->add_option("--objective", o->objective,
                  "label: one answer token per pair (scoring, MIS); generate: the packed-generation answer list "
                  "(the baseline `sift score --mode generate` decodes); lm: the next token of plain text, every "
                  "token (pretraining), documents packed into --max-sequence-tokens sequences with EOS between them")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, sift::train::Objective>{{"label", sift::train::Objective::Label},
                                                        {"generate", sift::train::Objective::Generate},
                                                        {"lm", sift::train::Objective::Lm}}))
      ->default_str("label");
  cmd->add_option("--targets", o->targets,
                  "labels: the rows' reference \"labels\" (hard targets); scores: distillation, the teacher's "
                  "\"scores\" (P(YES)) of `sift score --echo` / `sift batch --echo` rows as soft targets of a "
                  "cross-entropy, and validation measures agreement with the teacher (--objective label only)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, sift::train::Targets>{
          {"labels", sift::train::Targets::Labels}, {"scores", sift::train::Targets::Scores}}))
      ->default_str("labels");
  cmd->add_option("--epochs", t.epochs, "passes over the training data (default 1 unless --steps)");
  cmd->add_option("--steps", t.steps, "optimiser steps (cuts the epochs short; with --early-stopping, the cap)");
  cmd->add_option("--batch-size", t.batch_size, "labeled pairs per step (lm: target tokens per step)")
      ->capture_default_str();
  cmd->add_option("--lr", t.lr, "peak learning rate")->capture_default_str()->check(sift::apps::positive_decimal());
  cmd->add_option("--warmup", t.warmup, "linear warmup, as a fraction of the steps")
      ->capture_default_str()
      ->check(sift::apps::kProbability);
  cmd->add_option("--weight-decay", t.weight_decay, "AdamW weight decay (matrices only)")
      ->capture_default_str()
      ->check(sift::apps::decimal_in(0));
  cmd->add_option("--clip", t.clip, "max gradient norm (0: no clipping)")
      ->capture_default_str()
      ->check(sift::apps::decimal_in(0));
  cmd->add_flag("--pack", t.pack, "train on MIS-packed rows: same loss and gradients, fewer tokens (label only)");
  cmd->add_option("--seed", t.seed, "seed of the fresh weights and the data order")->capture_default_str();
  cmd->add_option("--save-every", t.save_every, "steps between checkpoints in OUT/checkpoint (0: at the end)");
  cmd->add_flag("--resume", t.resume, "continue from OUT/checkpoint");
  cmd->add_option("--early-stopping", t.early_stopping.patience,
                  "stop after this many evaluations without improvement and keep the best weights (needs "
                  "--validation and --eval-every): validation agreement at its agreement-maximising threshold "
                  "(label), teacher-forced agreement (generate), minus the loss (lm)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--eval-every", t.early_stopping.eval_every, "steps between validation evaluations (--early-stopping)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--min-delta", t.early_stopping.min_delta,
                  "the least gain of the validation metric that counts as an improvement (--early-stopping)")
      ->capture_default_str()
      ->check(sift::apps::decimal_in(0));
  cmd->add_option("--dtype", o->dtype, "model.safetensors dtype: f32 | bf16")->capture_default_str();
  cmd->add_option("--max-sequence-tokens", o->max_sequence_tokens,
                  "a longer training sequence (query + item, a packed row, or a generate prompt + answer list) is "
                  "left out: it bounds a step's memory")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sift::apps::add_max_line_bytes_option(cmd, o->max_line_bytes, "a longer line is left out, with a warning naming it");
  sift::apps::add_strict_flag(cmd, o->strict, "was left out (checked before any training)");
  cmd->callback([o] {
    sift::rerun_with_cpu_blas_kernels();  // before any matrix product (blas_kernels.h)
    o->quiet = sift::apps::global_options().quiet;
    const sift::train::TrainRunResult r = sift::train::run_training(*o);
    const bool generate = o->objective == sift::train::Objective::Generate;
    const bool lm = o->objective == sift::train::Objective::Lm;
    const bool soft = o->targets == sift::train::Targets::Scores;
    nlohmann::ordered_json report = {{"out", o->out.string()},
                                     {"objective", generate ? "generate" : lm ? "lm" : "label"},
                                     {"targets", soft ? "scores" : "labels"},
                                     {"threshold", r.threshold},
                                     {"step", r.summary.step},
                                     {"total_steps", r.total_steps},
                                     {"steps_this_run", r.summary.steps_done},
                                     {"weights_step", r.weights_step},
                                     {"stopped_early", r.summary.stopped_early},
                                     {"loss", r.summary.loss_ema},
                                     {"pairs_per_second", r.summary.pairs_per_second()},
                                     {"rows_left_out", r.rows_left_out},
                                     {"blas", sift::blas_kernels_in_use()},
                                     {"validation_agreement", nullptr},
                                     {"validation_pairs", nullptr},
                                     {"validation_agreement_kind", nullptr}};
    if (r.validation) {
      report["validation_agreement"] = r.validation->rate();
      report["validation_pairs"] = r.validation->n_pairs;
      // scored: the MIS scores at threshold 0.5; teacher_forced: the decision token under the
      // reference answer list (train/evaluate.h), an upper bound on greedy decoding's agreement.
      // teacher: the student's labels at the written threshold against the teacher's (--targets scores).
      report["validation_agreement_kind"] = generate ? "teacher_forced" : soft ? "teacher" : "scored";
    }
    if (r.validation_score_gap) report["validation_score_gap"] = *r.validation_score_gap;
    if (lm) report["train_tokens"] = r.n_train_tokens;
    if (r.validation_loss) report["validation_loss"] = *r.validation_loss;
    if (r.best) {
      // What the run watched: agreement (label: at the agreement-maximising threshold;
      // generate: teacher-forced) or, for lm, minus the mean next-token loss.
      nlohmann::ordered_json history = nlohmann::ordered_json::array();
      for (const sift::train::Evaluation& e : r.evaluations) history.push_back({e.step, e.value});
      report["early_stopping"] = {{"metric", generate ? "teacher_forced_agreement"
                                             : lm     ? "minus_validation_loss"
                                             : soft   ? "teacher_agreement"
                                                      : "best_threshold_agreement"},
                                  {"best_step", r.best->step},
                                  {"best", r.best->value},
                                  {"evaluations", history}};
    }
    sift::apps::print_report(report);
  });
}

#endif  // SIFT_HAVE_TORCH
