#pragma once
// One `sift train` run end to end, apart from the command line (src/apps/cmd_train.cpp is
// only its flags): read and check the inputs, build the model, tokenize with the scoring
// contract, train (trainer.h), write the labeler directory (labeler_export.h) and measure
// validation agreement with the libtorch model (evaluate.h).
//
// Model source: init_model (a Hugging Face directory with tokenizer.json) or config +
// tokenizer (fresh weights from the seed). Prompt artifact: artifact, else init_model's
// sift.json, else default_artifact(). The written sift.json is that artifact with
// threshold 0.5 and version "trained-seed<seed>-step<step>".
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "train/evaluate.h"
#include "train/trainer.h"

namespace sift::train {

struct TrainRunOptions {
  std::filesystem::path train, validation, out;
  std::filesystem::path init_model, config, tokenizer, artifact;
  std::string dtype = "f32";  // of model.safetensors: f32 | bf16
  int threads = 0;            // torch and tokenizer threads; 0 = all cores
  TrainOptions training;      // checkpoint_dir is set to out/checkpoint
};

struct TrainRunResult {
  TrainSummary summary;
  int64_t total_steps = 0;
  std::optional<Agreement> validation;
};

TrainRunResult run_training(TrainRunOptions options);

}  // namespace sift::train
