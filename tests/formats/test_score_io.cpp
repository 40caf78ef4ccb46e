#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "formats/score_io.h"

namespace sift {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

std::string error_of(std::string_view line) {
  try {
    parse_scoring_row(line);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ScoreIo, ParsesStringAndObjectItemsAndIgnoresOtherFields) {
  ScoringRow row = parse_scoring_row(
      R"({"id": "m1", "query": "q", "items": ["a", {"id": 7, "text": "b"}, {"text": "c"}], "labels": [1]})");
  EXPECT_EQ(row.id, "m1");
  EXPECT_EQ(row.query, "q");
  EXPECT_EQ(row.items, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(row.has_item_ids);
  EXPECT_EQ(json(row.item_ids), json::parse("[null, 7, null]"));
  row = parse_scoring_row(R"({"query": "q", "items": []})");
  EXPECT_TRUE(row.id.is_null());
  EXPECT_FALSE(row.has_item_ids);
}

TEST(ScoreIo, MalformedRowsSayWhy) {
  EXPECT_THAT(error_of("{\"query\": "), HasSubstr("invalid JSON"));
  EXPECT_THAT(error_of("[1]"), HasSubstr("JSON object"));
  EXPECT_THAT(error_of(R"({"items": []})"), HasSubstr("\"query\""));
  EXPECT_THAT(error_of(R"({"query": 3, "items": []})"), HasSubstr("\"query\" must be a string"));
  EXPECT_THAT(error_of(R"({"query": "q"})"), HasSubstr("\"items\""));
  EXPECT_THAT(error_of(R"({"query": "q", "items": "a"})"), HasSubstr("must be a list"));
  EXPECT_THAT(error_of(R"({"query": "q", "items": ["a", 5]})"), HasSubstr("items[1]"));
  EXPECT_THAT(error_of(R"({"query": "q", "items": [{"id": 1}]})"), HasSubstr("items[0]"));
}

TEST(ScoreIo, HostileRowsAreErrorsNotCrashes) {
  EXPECT_THAT(error_of(R"({"query": 1e400, "items": []})"), HasSubstr("invalid JSON"));  // out of double range
  const std::string deep_id = "{\"id\": " + std::string(100000, '[') + std::string(100000, ']') + ", \"query\": \"q\"}";
  EXPECT_THAT(error_of(deep_id), HasSubstr("nested deeper than 64"));
}

TEST(ScoreIo, WritesScoresLabelsAndUsage) {
  ScoringRow row = parse_scoring_row(R"({"id": 5, "query": "q", "items": ["a", "b"]})");
  RowResult result;
  result.scores = {0.25, 0.75};
  result.labels = {false, true};
  result.prefill_tokens = 40;
  result.requests = 1;
  const std::string version = "v7";  // sift.json's
  const double threshold = 0.6;
  ScoringOptions options;
  const nlohmann::ordered_json out = row_result_to_json(row, result, ScoringMode::Mis, artifact_provenance_json(version, threshold, options));
  EXPECT_EQ(out.dump(), R"({"id":5,"scores":[0.25,0.75],"labels":[false,true],)"
                        R"("usage":{"prefill_tokens":40,"requests":1},"artifact":{"version":"v7","threshold":0.6}})");
  options.threshold = 0.25;  // the threshold applied is the one recorded
  EXPECT_EQ(artifact_provenance_json(version, threshold, options).dump(), R"({"version":"v7","threshold":0.25})");
  options.mode = ScoringMode::Generate;  // hard decisions: no threshold applies
  EXPECT_EQ(artifact_provenance_json(version, threshold, options).dump(), R"({"version":"v7","threshold":null})");
}

TEST(ScoreIo, GenerateRowsListUnparsedItems) {
  ScoringRow row = parse_scoring_row(R"({"id": 1, "query": "q", "items": [{"id": "x", "text": "a"}, "b"]})");
  RowResult result;
  result.scores = {1.0, std::nullopt};
  result.labels = {true, std::nullopt};
  result.generation = Generation{.texts = {"1: YES\n2: ?"}, .unparsed = {1}, .generated_tokens = 4};
  result.prefill_tokens = 30;
  result.requests = 1;
  ScoringOptions options;
  options.mode = ScoringMode::Generate;
  const json out = json::parse(
      row_result_to_json(row, result, ScoringMode::Generate, artifact_provenance_json("", 0.5, options)).dump());
  EXPECT_EQ(out["item_ids"], json::parse(R"(["x", null])"));
  EXPECT_EQ(out["scores"], json::parse("[1.0, null]"));
  EXPECT_EQ(out["labels"], json::parse("[true, null]"));
  EXPECT_EQ(out["unparsed"], json::parse("[1]"));
  EXPECT_EQ(out["usage"]["generated_tokens"], 4);
}

TEST(ScoreIo, ErrorLines) {
  EXPECT_EQ(row_error_to_json(3, "bad"), json::parse(R"({"line": 3, "error": "bad"})"));
  json id = "m9";
  EXPECT_EQ(row_error_to_json(4, "too long", &id), json::parse(R"({"line": 4, "id": "m9", "error": "too long"})"));
}

TEST(ScoreIo, KeepsOtherFieldsForPassThrough) {
  const ScoringRow row = parse_scoring_row(
      R"({"id": "m1", "query": "q", "items": ["a"], "member_id": 12345678901234, "meta": {"k": [1, 2.5]}, "labels": [1]})");
  EXPECT_EQ(row.passthrough, json::parse(R"({"member_id": 12345678901234, "meta": {"k": [1, 2.5]}, "labels": [1]})"));
  EXPECT_EQ(passthrough_name(row, "labels"), "input_labels") << "the input's labels beside the labeler's";
  EXPECT_EQ(passthrough_name(row, "member_id"), "member_id");
  EXPECT_TRUE(shadowed_passthrough_fields(row).empty());
  const ScoringRow both = parse_scoring_row(R"({"query": "q", "items": ["a"], "labels": [1], "input_labels": [0]})");
  EXPECT_EQ(passthrough_name(both, "labels"), "") << "input_labels is taken: the input's labels have no name";
  EXPECT_EQ(shadowed_passthrough_fields(both), std::vector<std::string>{"labels"});
}

TEST(ScoreIo, EchoedLineIsTheRowWithItsScores) {
  const ScoringRow row = parse_scoring_row(
      R"({"id": 4, "query": "q", "items": [{"id": "x", "text": "a"}, "b"], "labels": [1, 0], "truth": [1, 1]})");
  RowResult result;
  result.scores = {0.25, 0.75};
  result.labels = {false, true};
  result.prefill_tokens = 9;
  result.requests = 1;
  const nlohmann::ordered_json provenance = {{"version", "v"}, {"threshold", 0.5}};
  EXPECT_EQ(output_line_text(echoed_row_to_json(row, result, ScoringMode::Mis, provenance)),
            R"({"id":4,"query":"q","items":[{"id":"x","text":"a"},"b"],"input_labels":[1,0],"truth":[1,1],)"
            R"("item_ids":["x",null],"scores":[0.25,0.75],"labels":[false,true],)"
            R"("usage":{"prefill_tokens":9,"requests":1},"artifact":{"version":"v","threshold":0.5}})");
  // Read back as a row, it is the same row: the echoed line feeds what reads rows.
  const ScoringRow again = parse_scoring_row(output_line_text(echoed_row_to_json(row, result, ScoringMode::Mis, provenance)));
  EXPECT_EQ(again.query, row.query);
  EXPECT_EQ(again.items, row.items);
  EXPECT_EQ(again.item_ids, row.item_ids);
}

TEST(ScoreIo, BatchLineIsTheScoreLineWithPassThroughAndArtifact) {
  const ScoringRow row = parse_scoring_row(
      R"({"id": "m1", "query": "q", "items": [{"id": "x", "text": "a"}, "b"], "member_id": 7, "labels": [1, 0], "zz": null})");
  RowResult result;
  result.scores = {0.25, 0.75};
  result.labels = {false, true};
  result.prefill_tokens = 40;
  result.requests = 1;
  const nlohmann::ordered_json provenance = {{"version", "v3+cal1"}, {"threshold", 0.37908427711695021}};
  const std::string line = batch_output_line(5, row, result, ScoringMode::Mis, provenance);
  // The sift score line's fields in its order, the pass-through fields, then the stamp; the
  // input's "labels" are kept as "input_labels", beside the labeler's.
  EXPECT_EQ(line,
            R"({"id":"m1","item_ids":["x",null],"scores":[0.25,0.75],"labels":[false,true],)"
            R"("usage":{"prefill_tokens":40,"requests":1},"input_labels":[1,0],"member_id":7,"zz":null,)"
            R"("artifact":{"version":"v3+cal1","threshold":0.3790842771169502}})");
  json parsed = json::parse(line);
  EXPECT_EQ(parsed["artifact"]["threshold"].get<double>(), 0.37908427711695021);  // every bit
  parsed.erase("member_id");
  parsed.erase("zz");
  parsed.erase("input_labels");
  EXPECT_EQ(parsed, json::parse(row_result_to_json(row, result, ScoringMode::Mis, provenance).dump()));
}

TEST(ScoreIo, BatchErrorLineIsTheScoreErrorLine) {
  ScoringRow row;
  row.id = "m9";
  row.passthrough = {{"member_id", 3}};
  RowResult failed;
  failed.error = "query too long";
  EXPECT_EQ(batch_output_line(12, row, failed, ScoringMode::Mis, {{"version", "v"}, {"threshold", 0.5}}),
            R"({"error":"query too long","id":"m9","line":12})");
}

}  // namespace
}  // namespace sift
