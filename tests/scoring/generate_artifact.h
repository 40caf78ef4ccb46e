#pragma once
// The artifact of the packed-generation tests: short templates over the fake tokenizer
// (fake_tokenizer.h), so prompt lengths can be counted by hand.
#include "scoring/artifact.h"

namespace sift::testing {

inline ScoringArtifact generate_test_artifact() {
  ScoringArtifact a;
  a.version = "1";
  a.query_template = "Q:{query}\n";
  a.item_template = "I:{item}";
  a.generate_item_template = "{index}. {item}\n";
  a.generate_answer_template = "A:\n";
  return a;
}

}  // namespace sift::testing
