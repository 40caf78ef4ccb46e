// The self-test rule (scoring/self_test.h): sift.json's "self_test" parsed with an Error naming
// the field for hostile values, the log-odds gap, and the verdict per arithmetic.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "scoring/artifact.h"
#include "scoring/self_test.h"

namespace sift {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;

json artifact_with(json self_test) {
  return {{"format", "sift.scoring/2"}, {"version", "1"},   {"query_template", "Q: {query}\n"},
          {"item_template", "I: {item}\nA:"}, {"yes", "YES"}, {"no", "NO"}, {"threshold", 0.5},
          {"self_test", std::move(self_test)}};
}

json one_probe() { return {{"query", "q"}, {"items", {"a", "b"}}, {"scores", {0.25, 0.75}}}; }

std::string error_of(const json& self_test) {
  try {
    parse_scoring_artifact(artifact_with(self_test), "sift.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SelfTest, ParsesProbesAndTolerancesAndRoundTripsScoresExactly) {
  const double awkward = 0.1 + 0.2;  // 0.30000000000000004: needs all 17 digits
  json probe = one_probe();
  probe["scores"] = {awkward, 1e-300};
  const ScoringArtifact a = parse_scoring_artifact(
      artifact_with({{"probes", {probe}}, {"tolerance", {{"bf16", 0.1}, {"q8", 0.2}, {"engine", 0.3}}}}), "x");
  ASSERT_TRUE(a.self_test);
  EXPECT_EQ(a.self_test->probes[0].items, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(a.self_test->tolerance.q8, 0.2);
  const json written = json::parse(self_test_to_json(*a.self_test).dump());
  const ScoringArtifact again = parse_scoring_artifact(artifact_with(written), "x");
  EXPECT_EQ(again.self_test->probes[0].scores[0], awkward);  // bitwise
  EXPECT_EQ(again.self_test->probes[0].scores[1], 1e-300);
}

TEST(SelfTest, AbsentIsNoneAndDefaultsFillTolerances) {
  json old = artifact_with(nullptr);
  old.erase("self_test");
  EXPECT_FALSE(parse_scoring_artifact(old, "x").self_test);
  const ScoringArtifact a = parse_scoring_artifact(artifact_with({{"probes", {one_probe()}}}), "x");
  EXPECT_EQ(a.self_test->tolerance.bf16, kDefaultBf16Tolerance);
  EXPECT_EQ(a.self_test->tolerance.engine, kDefaultEngineTolerance);
}

TEST(SelfTest, HostileFieldsAreErrorsNamingTheField) {
  EXPECT_THAT(error_of("probes"), AllOf(HasSubstr("sift.json"), HasSubstr("\"self_test\" must be an object")));
  EXPECT_THAT(error_of(json::object()), HasSubstr("missing required field \"probes\""));
  EXPECT_THAT(error_of({{"probes", json::array()}}), HasSubstr("probes is empty"));
  EXPECT_THAT(error_of({{"probes", {one_probe()}}, {"tolerence", 1}}), HasSubstr("unknown field \"tolerence\""));
  json probes = json::array();
  for (size_t i = 0; i <= kMaxSelfTestProbes; ++i) probes.push_back(one_probe());
  EXPECT_THAT(error_of({{"probes", probes}}), HasSubstr("at most 16"));
  json many = one_probe();
  many["items"] = std::vector<std::string>(kMaxSelfTestItems + 1, "x");
  many["scores"] = std::vector<double>(kMaxSelfTestItems + 1, 0.5);
  EXPECT_THAT(error_of({{"probes", {many}}}), HasSubstr("more than 64 items"));
  json p = one_probe();
  p["scores"] = {0.5};
  EXPECT_THAT(error_of({{"probes", {p}}}), AllOf(HasSubstr("probes[0]"), HasSubstr("2 items but 1 scores")));
  p = one_probe();
  p["scores"] = {0.5, "0.5"};
  EXPECT_THAT(error_of({{"probes", {p}}}), HasSubstr("probes[0].scores[1] must be a number"));
  p["scores"] = {0.5, 1.5};
  EXPECT_THAT(error_of({{"probes", {p}}}), HasSubstr("must be a probability in [0, 1], got 1.5"));
  p["scores"] = {0.5, std::numeric_limits<double>::quiet_NaN()};  // a NaN held in memory
  EXPECT_THAT(error_of({{"probes", {p}}}), HasSubstr("probes[0].scores[1] must be a probability in [0, 1]"));
  p = one_probe();
  p["items"] = {"a", 3};
  EXPECT_THAT(error_of({{"probes", {p}}}), HasSubstr("probes[0].items[1] must be a string"));
  p = one_probe();
  p.erase("query");
  EXPECT_THAT(error_of({{"probes", {p}}}), HasSubstr("missing required field \"query\""));
  EXPECT_THAT(error_of({{"probes", {one_probe()}}, {"tolerance", {{"q8", -1}}}}), HasSubstr("tolerance.q8"));
  EXPECT_THAT(error_of({{"probes", {one_probe()}}, {"tolerance", {{"bf16", "big"}}}}), HasSubstr("tolerance.bf16"));
}

TEST(SelfTest, TheGapIsInLogOddsAndDoesNotVanishWhereProbabilitiesSaturate) {
  EXPECT_DOUBLE_EQ(log_odds_gap(0.5, 0.5), 0);
  EXPECT_NEAR(log_odds_gap(0.75, 0.5), std::log(3.0), 1e-12);
  // 1e-6 against 1e-9 differ by 1e-6 as probabilities, by about log(1000) in log-odds
  EXPECT_NEAR(log_odds_gap(1e-6, 1e-9), std::log(1000.0), 1e-3);
  // clamped at 1e-12: 0 and 1 are finite
  EXPECT_TRUE(std::isfinite(log_odds_gap(0.0, 1.0)));
  EXPECT_TRUE(std::isinf(log_odds_gap(std::nan(""), 0.5)));
}

TEST(SelfTest, F32MustBeBitwiseOthersWithinTheirTolerance) {
  SelfTest t{.probes = {{"q", {"first", "second"}, {0.5, 0.5}}}, .tolerance = {0.1, 0.2, 0.3}};
  const double next = std::nextafter(0.5, 1.0);
  EXPECT_FALSE(compare_probes(t, {{0.5, 0.5}}, ProbeArithmetic::F32, "x"));
  const std::optional<std::string> one_ulp = compare_probes(t, {{0.5, next}}, ProbeArithmetic::F32, "the labeler");
  ASSERT_TRUE(one_ulp);
  EXPECT_THAT(*one_ulp, AllOf(HasSubstr("the labeler fails its self-test"), HasSubstr("probe 1 item 2 \"second\""),
                              HasSubstr("expects 0.5"), HasSubstr("same bits"), HasSubstr("1 of 2")));
  EXPECT_FALSE(compare_probes(t, {{0.5, next}}, ProbeArithmetic::BF16, "x"));
  const double p = 1 / (1 + std::exp(-0.15));  // log-odds 0.15 from 0.5
  EXPECT_TRUE(compare_probes(t, {{p, 0.5}}, ProbeArithmetic::BF16, "x"));
  EXPECT_FALSE(compare_probes(t, {{p, 0.5}}, ProbeArithmetic::Q8, "x"));
  EXPECT_FALSE(compare_probes(t, {{p, 0.5}}, ProbeArithmetic::Engine, "x"));
  const std::optional<std::string> q8 = compare_probes(t, {{0.9, 0.5}}, ProbeArithmetic::Q8, "engine E");
  ASSERT_TRUE(q8);
  EXPECT_THAT(*q8, AllOf(HasSubstr("engine E"), HasSubstr("probe 1 item 1 \"first\" scored 0.9"),
                         HasSubstr("log-odds gap 2.2"), HasSubstr("q8 tolerance 0.2")));
  EXPECT_TRUE(compare_probes(t, {{std::nan(""), 0.5}}, ProbeArithmetic::Engine, "x"));  // NaN never passes
  EXPECT_TRUE(compare_probes(t, {{0.5}}, ProbeArithmetic::Engine, "x"));                // a missing score neither
}

TEST(SelfTest, ARefusalCutsALongItemOnACharacterBoundary) {
  const std::string long_item = std::string(39, 'a') + "\xC3\xA9" + std::string(100, 'b');  // é across byte 40
  SelfTest t{.probes = {{"q", {long_item}, {0.5}}}, .tolerance = {}};
  const std::string refusal = *compare_probes(t, {{0.9}}, ProbeArithmetic::F32, "x");
  EXPECT_THAT(refusal, HasSubstr("\"" + std::string(39, 'a') + "...\""));
}

TEST(SelfTest, WithSelfTestKeepsEveryOtherFieldAndItsOrder) {
  const std::string text = R"({"zeta": 1, "format": "sift.scoring/2", "note": {"x": [1, 2]}})";
  SelfTest t{.probes = {{"q", {"a"}, {0.25}}}, .tolerance = {}};
  const json written = json::parse(with_self_test(text, t, "sift.json"));
  EXPECT_EQ(written["note"], json::parse(R"({"x": [1, 2]})"));
  EXPECT_EQ(written.begin().key(), "format");  // json sorts; the text keeps "zeta" first:
  EXPECT_EQ(with_self_test(text, t, "sift.json").find("\"zeta\""), 4u);
  EXPECT_EQ(written["self_test"]["probes"][0]["scores"][0], 0.25);
}

}  // namespace
}  // namespace sift
