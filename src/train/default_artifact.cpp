#include "train/default_artifact.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "core/error.h"
#include "scoring/prompt.h"

namespace sift::train {

ScoringArtifact default_artifact(const Tokenizer& tokenizer, const std::string& version) {
  static const std::pair<const char*, const char*> kAnswerPairs[] = {
      {" YES", " NO"}, {"YES", "NO"}, {" Yes", " No"}, {" yes", " no"}, {" Y", " N"}, {"Y", "N"}};
  nlohmann::json json = {
      {"format", kScoringFormat},
      {"version", version},
      {"query_template", "Profile:\n{query}\nDoes the profile support the qualification? Answer YES or NO.\n"},
      {"item_template", "Qualification: {item}\nAnswer:"},
      {"threshold", 0.5}};
  for (const auto& [yes, no] : kAnswerPairs) {
    json["yes"] = yes;
    json["no"] = no;
    ScoringArtifact artifact = parse_scoring_artifact(json, "default artifact");
    try {
      resolve_answer_tokens(tokenizer, artifact, "default artifact");
      return artifact;
    } catch (const Error&) {
      // not one token each in this vocabulary: try the next pair
    }
  }
  fail("default artifact: none of the answer pairs (\" YES\"/\" NO\" ... \"Y\"/\"N\") is one token each in "
       "this tokenizer; give a sift.json with --artifact");
}

}  // namespace sift::train
