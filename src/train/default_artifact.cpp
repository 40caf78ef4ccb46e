#include "train/default_artifact.h"

#include "workflows/artifact_presets.h"

namespace sift::train {

ScoringArtifact default_artifact(const Tokenizer& tokenizer, const std::string& version) {
  PresetOptions options;
  options.preset = "compact";
  options.version = version;
  return preset_artifact(tokenizer, options);
}

}  // namespace sift::train
