// Judging in rounds with a real tiny labeler: each round's scores are the bits of scoring
// each candidate alone, and the loop stops exactly where the rule says.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>

#include "api/labeler_of.h"
#include "core/error.h"
#include "label/round_judge.h"
#include "label/rounds.h"
#include "tiny_labeler.h"

using namespace sift::label;

namespace {

const std::string kProfile = "Data engineer, eight years of PySpark and Kafka; speaks Portuguese.";

std::vector<Candidate> candidates(int n) {
  const char* names[] = {"Apache Spark", "Kafka", "Portuguese", "Welding", "Python", "Nursing", "SQL", "Excel",
                         "Kubernetes", "Cooking", "Terraform", "Spanish"};
  std::vector<Candidate> out;
  for (int i = 0; i < n; ++i) out.push_back({"q" + std::to_string(i), std::string(names[i % 12]) + " " + std::to_string(i)});
  return out;
}

// A judge on its own copy of the tiny labeler, with a query-KV cache as sift label gives it.
RoundJudge judge_with(double threshold) {
  return RoundJudge(sift::labeler_of(sift::testing::tiny_labeler(threshold), {.query_cache_bytes = int64_t{64} << 20}));
}

std::vector<double> scores_alone(const sift::LoadedLabeler& labeler, const std::vector<Candidate>& ranked) {
  std::vector<double> scores;
  for (const Candidate& c : ranked) scores.push_back(*labeler.score_row(kProfile, {c.name}, {}).scores.at(0));
  return scores;
}

}  // namespace

TEST(RoundJudge, EveryRoundScoresAsScoringItAlone) {
  auto labeler = sift::testing::tiny_labeler(0.0);  // everything accepted: every round runs
  RoundJudge judge = judge_with(0.0);
  const std::vector<Candidate> ranked = candidates(23);
  RoundsOutcome outcome = judge_in_rounds(judge, kProfile, ranked, {5, 5, 0.2});
  EXPECT_EQ(outcome.rounds, 5);
  EXPECT_EQ(outcome.stop, StopReason::exhausted);
  ASSERT_EQ(outcome.judgments.size(), 23u);

  const std::vector<double> alone = scores_alone(*labeler, ranked);
  std::vector<std::string> names;
  for (const Candidate& c : ranked) names.push_back(c.name);
  const sift::RowResult all_at_once = labeler->score_row(kProfile, names, {});
  for (size_t i = 0; i < ranked.size(); ++i) {
    const sift::store::Judgment& j = outcome.judgments[i];
    EXPECT_EQ(j.qualification, ranked[i].id);
    EXPECT_EQ(j.rank, int64_t(i) + 1);
    EXPECT_EQ(j.round, int64_t(i) / 5 + 1);
    EXPECT_EQ(std::bit_cast<uint64_t>(j.score), std::bit_cast<uint64_t>(alone[i])) << "candidate " << i;
    EXPECT_EQ(std::bit_cast<uint64_t>(j.score), std::bit_cast<uint64_t>(*all_at_once.scores[i])) << "candidate " << i;
    EXPECT_TRUE(j.label);
  }
  EXPECT_GT(judge.model_seconds(), 0.0);
  EXPECT_GT(outcome.prefill_tokens, 0);
}

TEST(RoundJudge, PrefillsAProfileOnceForAllItsRounds) {
  auto labeler = sift::testing::tiny_labeler(0.5);
  RoundJudge judge = judge_with(0.5);
  const std::vector<std::string> first = {"Apache Spark", "Kafka"}, second = {"Welding"};
  const sift::TokenizedRow tokens1 = labeler->tokenize(kProfile, first), tokens2 = labeler->tokenize(kProfile, second);
  const auto items_len = [](const sift::TokenizedRow& row) {
    int64_t n = 0;
    for (const auto& item : row.items) n += static_cast<int64_t>(item.size());
    return n;
  };
  const int64_t profile_len = static_cast<int64_t>(tokens1.query.size());
  EXPECT_EQ(judge.judge(kProfile, first).prefill_tokens, profile_len + items_len(tokens1));
  const RoundJudge::Verdicts later = judge.judge(kProfile, second);
  EXPECT_EQ(later.prefill_tokens, items_len(tokens2)) << "the second round prefilled the profile again";
  EXPECT_EQ(std::bit_cast<uint64_t>(later.scores[0]),
            std::bit_cast<uint64_t>(*labeler->score_row(kProfile, second, {}).scores[0]));
  // Another profile runs whole, and its scores are its own.
  const std::string other = "Registered nurse, ICU";
  const RoundJudge::Verdicts switched = judge.judge(other, second);
  EXPECT_EQ(switched.prefill_tokens, static_cast<int64_t>(labeler->tokenize(other, second).query.size()) + items_len(tokens2));
  EXPECT_EQ(std::bit_cast<uint64_t>(switched.scores[0]),
            std::bit_cast<uint64_t>(*labeler->score_row(other, second, {}).scores[0]));
}

TEST(Rounds, StopsAfterTheFirstRoundBelowTheFractionAndNowhereElse) {
  const std::vector<Candidate> ranked = candidates(30);
  std::vector<double> sorted = scores_alone(*sift::testing::tiny_labeler(0.5), ranked);
  std::sort(sorted.begin(), sorted.end());
  ASSERT_LT(sorted.front(), sorted.back()) << "the tiny labeler must not score everything alike";

  int below_stops = 0, full_runs = 0;
  for (size_t q = 1; q < 10; ++q) {
    const double threshold = sorted[sorted.size() * q / 10];
    for (double stop_below : {0.0, 0.2, 0.5, 0.8}) {
      RoundJudge judge = judge_with(threshold);
      const RoundOptions options{4, 6, stop_below};
      RoundsOutcome outcome = judge_in_rounds(judge, kProfile, ranked, options);
      // Per round: judged and accepted, from the stored judgments.
      std::vector<int64_t> judged(size_t(outcome.rounds), 0), accepted(size_t(outcome.rounds), 0);
      for (const sift::store::Judgment& j : outcome.judgments) {
        judged.at(size_t(j.round - 1)) += 1;
        accepted.at(size_t(j.round - 1)) += j.label;
        EXPECT_EQ(j.label, j.score >= threshold);
      }
      for (int64_t r = 0; r + 1 < outcome.rounds; ++r)
        EXPECT_FALSE(round_is_below(accepted[size_t(r)], judged[size_t(r)], stop_below)) << "went on after round " << r + 1;
      const bool last_below = round_is_below(accepted.back(), judged.back(), stop_below);
      if (outcome.stop == StopReason::below_threshold) {
        EXPECT_TRUE(last_below);
        ++below_stops;
      } else {
        EXPECT_FALSE(last_below);
        EXPECT_EQ(outcome.rounds, 6) << "stopped without a reason";
        EXPECT_EQ(outcome.stop, StopReason::max_rounds);
        ++full_runs;
      }
      EXPECT_EQ(outcome.judgments.size(), size_t(4 * outcome.rounds));
    }
  }
  EXPECT_GT(below_stops, 0);
  EXPECT_GT(full_runs, 0);
}

TEST(Rounds, NothingAcceptedStopsAfterOneRoundUnlessStopBelowIsZero) {
  RoundJudge judge = judge_with(1.0);  // P(yes) = 1 exactly never happens here
  RoundsOutcome strict = judge_in_rounds(judge, kProfile, candidates(40), {10, 3, 0.2});
  EXPECT_EQ(strict.rounds, 1);
  EXPECT_EQ(strict.stop, StopReason::below_threshold);
  EXPECT_EQ(strict.accepted, 0);
  RoundsOutcome never_stop = judge_in_rounds(judge, kProfile, candidates(40), {10, 3, 0.0});
  EXPECT_EQ(never_stop.rounds, 3);
  EXPECT_EQ(never_stop.stop, StopReason::max_rounds);
  EXPECT_EQ(never_stop.judgments.size(), 30u) << "candidates past max_rounds * k are not judged";
}

TEST(Rounds, NoCandidatesIsZeroRoundsAndNoModelWork) {
  RoundJudge judge = judge_with(0.5);
  RoundsOutcome outcome = judge_in_rounds(judge, kProfile, {}, {20, 5, 0.2});
  EXPECT_EQ(outcome.rounds, 0);
  EXPECT_EQ(outcome.stop, StopReason::exhausted);
  EXPECT_EQ(judge.model_seconds(), 0.0);
}

TEST(Rounds, ProfilesJudgedTogetherGetWhatEachGetsAlone) {
  // Rounds of several profiles go to the labeler together (sift label --engine keeps the
  // engines busy so): each profile's judgments, rounds and stop are what judging it alone
  // gives, whatever its companions; a profile that cannot be scored (invalid UTF-8) fails
  // alone, and a profile without candidates takes no round.
  const double threshold = 0.5;
  const std::vector<Candidate> many = candidates(23), few = candidates(3), none;
  const std::string nurse = "Registered nurse, ICU, ten years", bad = "broken \xff profile";
  const std::vector<ProfileCandidates> group = {
      {kProfile, &many}, {nurse, &few}, {bad, &few}, {nurse, &none}, {"Welder and cook", &many}};
  for (const RoundOptions options : {RoundOptions{5, 5, 0.0}, RoundOptions{4, 6, 0.5}}) {
    RoundJudge together = judge_with(threshold);
    const std::vector<RoundsOutcome> outcomes = judge_in_rounds(together, group, options);
    ASSERT_EQ(outcomes.size(), group.size());
    for (size_t p = 0; p < group.size(); ++p) {
      RoundJudge alone = judge_with(threshold);
      if (p == 2) {
        EXPECT_THROW(judge_in_rounds(alone, group[p].profile, *group[p].ranked, options), sift::Error);
        EXPECT_FALSE(outcomes[p].error.empty()) << "the invalid profile fails";
        EXPECT_TRUE(outcomes[p].judgments.empty());
        continue;
      }
      const RoundsOutcome want = judge_in_rounds(alone, group[p].profile, *group[p].ranked, options);
      const RoundsOutcome& got = outcomes[p];
      EXPECT_EQ(got.error, "") << "profile " << p;
      EXPECT_EQ(got.rounds, want.rounds) << "profile " << p;
      EXPECT_EQ(got.stop, want.stop) << "profile " << p;
      EXPECT_EQ(got.accepted, want.accepted) << "profile " << p;
      ASSERT_EQ(got.judgments.size(), want.judgments.size()) << "profile " << p;
      for (size_t j = 0; j < got.judgments.size(); ++j) {
        EXPECT_EQ(got.judgments[j].qualification, want.judgments[j].qualification);
        EXPECT_EQ(got.judgments[j].round, want.judgments[j].round);
        EXPECT_EQ(got.judgments[j].label, want.judgments[j].label);
        EXPECT_EQ(std::bit_cast<uint64_t>(got.judgments[j].score), std::bit_cast<uint64_t>(want.judgments[j].score))
            << "profile " << p << ", judgment " << j;
      }
    }
    EXPECT_EQ(outcomes[3].rounds, 0) << "no candidates, no round";
  }
}

TEST(Rounds, TheFractionRule) {
  EXPECT_FALSE(round_is_below(1, 5, 0.2)) << "equal to stop_below goes on";
  EXPECT_TRUE(round_is_below(0, 5, 0.2));
  EXPECT_TRUE(round_is_below(3, 20, 0.2));
  EXPECT_FALSE(round_is_below(0, 5, 0.0)) << "0 never stops";
  EXPECT_FALSE(round_is_below(0, 0, 0.5)) << "an empty round is no evidence";
  EXPECT_TRUE(round_is_below(19, 20, 1.0));
}

TEST(Rounds, OptionsAreChecked) {
  EXPECT_THROW((RoundOptions{0, 5, 0.2}.validate()), sift::OptionError);
  EXPECT_THROW((RoundOptions{20, 0, 0.2}.validate()), sift::OptionError);
  EXPECT_THROW((RoundOptions{20, 5, -0.1}.validate()), sift::OptionError);
  EXPECT_THROW((RoundOptions{20, 5, 1.5}.validate()), sift::OptionError);
  EXPECT_THROW((RoundOptions{20, 5, std::nan("")}.validate()), sift::OptionError);
  EXPECT_THROW((RoundOptions{1'000'000, 5, 0.2}.validate()), sift::OptionError);
  EXPECT_NO_THROW((RoundOptions{20, 5, 0.2}.validate()));
}
