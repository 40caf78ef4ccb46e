#include "train/labeler_export.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "model/config.h"

namespace sift::train {
namespace {

namespace fs = std::filesystem;

void write_json_atomically(const fs::path& path, const nlohmann::json& json) {
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp);
    out << json.dump(2) << "\n";
    if (!out) fail("{}: cannot write", tmp.string());
  }
  fs::rename(tmp, path);
}

}  // namespace

void write_labeler(const fs::path& dir, const TorchModel& model, DType dtype, const fs::path& tokenizer_json,
                   const ScoringArtifact& artifact) {
  fs::create_directories(dir);
  model.write_safetensors(dir / "model.safetensors", dtype);
  write_json_atomically(dir / "config.json", model_config_to_json(model.config()));
  if (fs::weakly_canonical(tokenizer_json) != fs::weakly_canonical(dir / "tokenizer.json")) {
    fs::path tmp = dir / "tokenizer.json.tmp";
    fs::copy_file(tokenizer_json, tmp, fs::copy_options::overwrite_existing);
    fs::rename(tmp, dir / "tokenizer.json");
  }
  write_json_atomically(dir / "sift.json", scoring_artifact_to_json(artifact));
}

}  // namespace sift::train
