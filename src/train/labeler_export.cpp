#include "train/labeler_export.h"

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/file_identity.h"
#include "model/config.h"

namespace sift::train {
namespace fs = std::filesystem;

void write_labeler(const fs::path& dir, const TorchModel& model, DType dtype, const fs::path& tokenizer_json,
                   const ScoringArtifact& artifact) {
  fs::create_directories(dir);
  model.write_safetensors(dir / "model.safetensors", dtype);
  write_file_atomically(dir / "config.json", model_config_to_json(model.config()).dump(2) + "\n");
  if (file_id(tokenizer_json) != file_id(dir / "tokenizer.json")) {
    std::ifstream in(tokenizer_json, std::ios::binary);
    if (!in) fail("{}: cannot open", tokenizer_json.string());
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    write_file_atomically(dir / "tokenizer.json", text);
  }
  write_file_atomically(dir / "sift.json", scoring_artifact_to_json(artifact).dump(2) + "\n");
}

}  // namespace sift::train
