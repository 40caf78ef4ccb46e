#pragma once
// The prompt a freshly trained labeler uses when no sift.json is given: the `compact` preset
// of workflows/artifact_presets.h (query part = the profile and the question, item part = the
// qualification, ending exactly at the answer position; answers the first pair of " YES"/" NO"
// ... "Y"/"N" that is one token each), so `sift init --preset compact` writes the same prompt.
#include <string>

#include "scoring/artifact.h"
#include "tokenizer/tokenizer.h"

namespace sift::train {

// version is written as given; threshold 0.5.
ScoringArtifact default_artifact(const Tokenizer& tokenizer, const std::string& version);

}  // namespace sift::train
