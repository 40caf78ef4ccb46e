#pragma once
// The prompt a freshly trained labeler uses when no sift.json is given: a compact layout
// (query part = instructions + profile, item part = the qualification, ending exactly at
// the answer position), defined here and nowhere else.
//
//   query_template: "Profile:\n{query}\nDoes the profile support the qualification? Answer YES or NO.\n"
//   item_template : "Qualification: {item}\nAnswer:"
//
// The answer strings must each be one token of the tokenizer in use; the first pair that
// is (resolve_answer_tokens) is taken from
//   " YES"/" NO", "YES"/"NO", " Yes"/" No", " yes"/" no", " Y"/" N", "Y"/"N"
// (a byte-level BPE always has "Y" and "N", so a small trained vocabulary works too).
#include <string>

#include "scoring/artifact.h"
#include "tokenizer/tokenizer.h"

namespace sift::train {

// version is written as given; threshold 0.5.
ScoringArtifact default_artifact(const Tokenizer& tokenizer, const std::string& version);

}  // namespace sift::train
