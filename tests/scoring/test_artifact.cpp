#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "scoring/artifact.h"

namespace sift {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;

json valid() {
  return {{"format", "sift.scoring/2"},
          {"version", "2026-11-01"},
          {"query_template", "<|im_start|>user\nProfile: {query}\n"},
          {"item_template", "Qualification: {item}\nAnswer:"},
          {"yes", "YES"},
          {"no", "NO"},
          {"threshold", 0.5}};
}

// The Error message of parsing `object`, or "" when it parses.
std::string error_of(const json& object) {
  try {
    parse_scoring_artifact(object, "dir/sift.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Artifact, ParsesAValidFile) {
  ScoringArtifact a = parse_scoring_artifact(valid(), "sift.json");
  EXPECT_EQ(a.version, "2026-11-01");
  EXPECT_EQ(a.query_template, "<|im_start|>user\nProfile: {query}\n");
  EXPECT_EQ(a.item_template, "Qualification: {item}\nAnswer:");
  EXPECT_EQ(a.yes, "YES");
  EXPECT_EQ(a.no, "NO");
  EXPECT_EQ(a.threshold, 0.5);
  EXPECT_EQ(a.generate_item_template, "{index}. {item}\n");
  EXPECT_THAT(a.generate_answer_template, AllOf(HasSubstr("<number>: YES"), HasSubstr("<number>: NO")));
}

TEST(Artifact, NumericVersionIsAccepted) {
  json j = valid();
  j["version"] = 3;
  EXPECT_EQ(parse_scoring_artifact(j, "sift.json").version, "3");
}

TEST(Artifact, KeepsTheJsonItWasParsedFrom) {  // every field as loaded, unknown ones and their types too
  json j = valid();
  j["version"] = 3;
  j["calibrations"] = json::array({{{"version", "3+cal1-f1"}, {"threshold", 0.25}, {"calibrated_at", "2026"}}});
  j["preset"] = {{"name", "chat"}, {"instruction", nullptr}};
  j["owner"] = {{"team", "search"}, {"ticket", {1, 2.5}}};
  const ScoringArtifact a = parse_scoring_artifact(j, "sift.json");
  EXPECT_EQ(json::parse(a.source_json), j);
  EXPECT_TRUE(json::parse(a.source_json)["version"].is_number_integer());
  EXPECT_EQ(a.version, "3");
}

TEST(Artifact, RoundTripsThroughJson) {
  ScoringArtifact a = parse_scoring_artifact(valid(), "sift.json");
  ScoringArtifact b = parse_scoring_artifact(scoring_artifact_to_json(a), "sift.json");
  EXPECT_EQ(scoring_artifact_to_json(a), scoring_artifact_to_json(b));
}

TEST(Artifact, EveryViolationNamesTheFileAndTheField) {
  struct Case {
    const char* field;
    json value;  // null = remove the field
    const char* says;
  };
  const std::vector<Case> cases = {
      {"format", "sift.scoring/3", "format"},
      {"format", "sift.scoring/1", "re-validate the labeler"},  // the old prompt encoding
      {"format", nullptr, "\"format\""},
      {"version", nullptr, "\"version\""},
      {"version", "", "\"version\""},
      {"version", json::array(), "\"version\""},
      {"query_template", nullptr, "\"query_template\""},
      {"query_template", "no placeholder", "exactly once, found it 0 times"},
      {"query_template", "{query} and {query}", "exactly once, found it 2 times"},
      {"query_template", "{query} {item}", "must not contain {item}"},
      {"query_template", 7, "must be a string"},
      {"item_template", "{item}{item}", "exactly once, found it 2 times"},
      {"item_template", "{query}{item}", "must not contain {query}"},
      {"item_template", "nothing", "\"item_template\""},
      {"yes", nullptr, "\"yes\""},
      {"yes", "", "\"yes\""},
      {"no", "YES", "must differ"},
      {"threshold", nullptr, "\"threshold\""},
      {"threshold", 1.5, "[0, 1]"},
      {"threshold", -0.1, "[0, 1]"},
      {"threshold", "0.5", "must be a number"},
      {"generate_item_template", "{item}", "\"generate_item_template\""},
      {"generate_item_template", "{item} {index}", "before"},
  };
  for (const Case& c : cases) {
    json j = valid();
    if (c.value.is_null()) j.erase(c.field);
    else j[c.field] = c.value;
    std::string message = error_of(j);
    EXPECT_THAT(message, AllOf(HasSubstr("dir/sift.json"), HasSubstr(c.says))) << c.field << " = " << c.value;
    EXPECT_THAT(message, HasSubstr(c.field)) << message;
  }
  EXPECT_THAT(error_of(json::array()), HasSubstr("JSON object"));
}

TEST(Artifact, LoadsFromAFileAndReportsBadJson) {
  auto dir = std::filesystem::temp_directory_path() / "sift_test_artifact";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "sift.json") << valid().dump();
  EXPECT_EQ(load_scoring_artifact(dir / "sift.json").yes, "YES");
  std::ofstream(dir / "bad.json") << "{\"format\": ";
  EXPECT_THROW(
      {
        try {
          load_scoring_artifact(dir / "bad.json");
        } catch (const Error& e) {
          EXPECT_THAT(e.what(), AllOf(HasSubstr("bad.json"), HasSubstr("invalid JSON")));
          throw;
        }
      },
      Error);
  EXPECT_THROW(load_scoring_artifact(dir / "missing.json"), Error);
  std::ofstream(dir / "huge.json") << "{\"threshold\": 1e400}";  // a number out of double range
  EXPECT_THROW(load_scoring_artifact(dir / "huge.json"), Error);
  std::ofstream(dir / "deep.json") << "{\"x\": " << std::string(100000, '[') << std::string(100000, ']') << "}";
  EXPECT_THAT([&] { load_scoring_artifact(dir / "deep.json"); },
              ::testing::ThrowsMessage<Error>(AllOf(HasSubstr("deep.json"), HasSubstr("nested deeper than 64"))));
}

TEST(Artifact, SplitsTemplatesAroundThePlaceholder) {
  TemplateParts parts = split_template("A {query} B", kQueryPlaceholder);
  EXPECT_EQ(parts.before, "A ");
  EXPECT_EQ(parts.after, " B");
  parts = split_template("{item}", kItemPlaceholder);
  EXPECT_EQ(parts.before, "");
  EXPECT_EQ(parts.after, "");
}

}  // namespace
}  // namespace sift
