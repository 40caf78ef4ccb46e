#pragma once
// One `sift train` run end to end, apart from the command line (src/apps/cmd_train.cpp is
// only its flags): read and check the inputs, build the model, tokenize with the scoring
// contract, train (trainer.h), write the labeler directory (labeler_export.h) and measure
// validation agreement with the libtorch model (evaluate.h).
//
// Objective: label (label-only scoring, §3.2: the examples of example_set.h; --pack packs a
// row's pairs) or generate (packed generation, §2.4: generate_examples.h; validation is then
// teacher-forced agreement, evaluate.h). Both plan the same steps over the same rows.
//
// Model source: init_model (a Hugging Face directory with tokenizer.json) or config +
// tokenizer (fresh weights from the seed). Prompt artifact: artifact, else init_model's
// sift.json, else default_artifact(). The written sift.json is that artifact with
// threshold 0.5 and version "trained-seed<seed>-step<step>" (label) or
// "trained-generate-seed<seed>-step<step>" (generate).
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

enum class Objective { Label, Generate };

struct TrainRunOptions {
  Objective objective = Objective::Label;
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
  int64_t rows_left_out = 0;  // training and validation rows
  std::optional<Agreement> validation;  // teacher-forced for the generate objective
};

TrainRunResult run_training(TrainRunOptions options);

}  // namespace sift::train
