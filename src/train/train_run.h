#pragma once
// One `sift train` run end to end, apart from the command line (src/apps/cmd_train.cpp is
// only its flags): read and check the inputs, build the model, tokenize with the scoring
// contract, train (trainer.h), write the labeler directory (labeler_export.h) and measure
// validation agreement with the libtorch model (evaluate.h).
//
// Objective: label (label-only scoring, §3.2: the examples of example_set.h; --pack packs a
// row's pairs) or generate (packed generation, §2.4: generate_examples.h; validation is then
// teacher-forced agreement, evaluate.h). Both plan the same steps over the same rows.
// lm (causal language modelling on plain text, lm_examples.h): pretraining a base that the
// other two then start from (--init-model); validation is the mean next-token loss.
//
// Validation with early stopping (trainer.h): label rows are scored and their agreement read
// at the agreement-maximising threshold (evaluate.h: best_threshold_agreement, the rule of
// `sift calibrate --target agreement`); generate rows give their teacher-forced agreement; lm
// text its loss (the metric is minus the loss). The labeler written holds the best weights.
//
// Targets scores (distillation; objective label): --train and --validation are teacher rows
// (teacher_rows.h: `sift score --echo` lines), the loss is soft_label_loss to the teacher's
// P(YES), and validation measures teacher agreement: the student's label at the teacher's
// threshold (the rows' artifact.threshold when they all name one, else 0.5) against the
// teacher's labels; that threshold is the written sift.json's, since the student learns the
// teacher's scores themselves. --pack works as for labels (a soft target per packed item).
//
// Model source: init_model (a Hugging Face directory with tokenizer.json) or config +
// tokenizer (fresh weights from the seed). Prompt artifact: artifact, else init_model's
// sift.json, else default_artifact(). The written sift.json is that artifact with
// threshold 0.5 (targets scores: the teacher's threshold, above) and version "trained-seed<seed>-step<step>" (label),
// "trained-generate-seed<seed>-step<step>" (generate) or "trained-lm-seed<seed>-step<step>"
// (lm), the step of the weights written (the best evaluation's, with early stopping).
//
// A training or validation row that cannot be read or is too long (examples.h) is left out
// with a warning naming file:line. --out is locked for the run, and refused when one of the
// files it would replace is an input (--init-model's own files, --train, ...).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "io/line_reader.h"
#include "train/evaluate.h"
#include "train/examples.h"
#include "train/trainer.h"

namespace sift::train {

enum class Objective { Label, Generate, Lm };

// What a label run learns (--targets): the rows' reference labels (hard, label_only_loss), or
// a teacher's scores (soft, soft_label_loss: distillation from `sift score --echo` rows,
// teacher_rows.h).
enum class Targets { Labels, Scores };

struct TrainRunOptions {
  Objective objective = Objective::Label;
  Targets targets = Targets::Labels;  // Scores: objective Label only
  std::filesystem::path train, validation, out;
  std::filesystem::path init_model, config, tokenizer, artifact;
  std::string dtype = "f32";  // of model.safetensors: f32 | bf16
  int threads = 0;            // torch and tokenizer threads; 0 = the process default (--threads)
  int64_t max_line_bytes = kDefaultMaxLineBytes;
  int64_t max_sequence_tokens = kDefaultMaxSequenceTokens;  // examples.h
  bool quiet = false;         // no progress on stderr
  bool strict = false;        // a row left out fails the run, before any training (--strict)
  TrainOptions training;      // checkpoint_dir is set to out/checkpoint
};

struct TrainRunResult {
  TrainSummary summary;
  int64_t total_steps = 0;
  int64_t weights_step = 0;   // the step of the weights written
  int64_t rows_left_out = 0;  // training and validation rows
  int64_t n_train_tokens = 0; // lm: the tokens of the training text (documents + separators)
  std::optional<Agreement> validation;  // at threshold 0.5 (scores: the written threshold, against the
                                        // teacher's labels); teacher-forced for the generate objective
  std::optional<double> validation_score_gap;  // scores: mean |student P(YES) - teacher P(YES)| on validation
  double threshold = 0.5;                      // of the sift.json written
  std::optional<double> validation_loss;  // lm: mean next-token loss on the validation text
  std::vector<Evaluation> evaluations;   // early stopping's, in order
  std::optional<Evaluation> best;        // early stopping's best evaluation
};

TrainRunResult run_training(TrainRunOptions options);

}  // namespace sift::train
