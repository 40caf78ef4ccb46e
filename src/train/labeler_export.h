#pragma once
// Writes a trained labeler as a Hugging Face directory that sift::Model::load and the
// scoring engine read directly:
//   DIR/model.safetensors  (F32 or BF16, Hugging Face tensor names)
//   DIR/config.json        (model_config_to_json)
//   DIR/tokenizer.json     (copied from the tokenizer used in training)
//   DIR/sift.json          (the scoring artifact the prompts were built with)
// Each file is written beside its final name and renamed into place.
#include <filesystem>

#include "io/dtype.h"
#include "scoring/artifact.h"
#include "train/torch_model.h"

namespace sift::train {

void write_labeler(const std::filesystem::path& dir, const TorchModel& model, DType dtype,
                   const std::filesystem::path& tokenizer_json, const ScoringArtifact& artifact);

}  // namespace sift::train
