#pragma once
// Judging a profile in rounds (the paper's loop, §2.1): round r judges the candidates ranked
// (r-1)K+1 .. rK; after a round whose accepted fraction accepted/judged is below
// stop_below, stop. Also stop after max_rounds, or when the candidates run out.
// stop_below = 0 never stops early; a round's fraction equal to stop_below goes on.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "label/round_judge.h"
#include "store/label_store.h"

namespace sift::label {

struct RoundOptions {
  int64_t k = 20;
  int64_t max_rounds = 5;
  double stop_below = 0.2;

  void validate() const;  // an OptionError naming the option
  int64_t max_candidates() const { return k * max_rounds; }
};

struct Candidate {
  std::string id;    // catalog id
  std::string name;  // what the labeler judges
};

enum class StopReason { below_threshold, max_rounds, exhausted };
std::string_view stop_reason_name(StopReason reason);

// accepted / judged < stop_below (a round of no candidates never is).
bool round_is_below(int64_t accepted, int64_t judged, double stop_below);

struct RoundsOutcome {
  std::vector<store::Judgment> judgments;  // rank order
  int64_t rounds = 0;
  int64_t accepted = 0;
  StopReason stop = StopReason::exhausted;
  int64_t prefill_tokens = 0;
  std::string error;  // a round could not be scored: the profile is not labeled (nothing else counts)
};

// A profile and its candidates, best first (at most options.max_candidates() used).
struct ProfileCandidates {
  std::string_view profile;
  const std::vector<Candidate>* ranked = nullptr;
};

// The rounds of several profiles, round r of every profile still going scored together
// (RoundJudge::judge over the group): outcome[i] is profiles[i]'s, what judging it alone
// gives. A profile whose round fails stops there with its error; the others go on.
std::vector<RoundsOutcome> judge_in_rounds(RoundJudge& judge, std::span<const ProfileCandidates> profiles,
                                           const RoundOptions& options);

// One profile's rounds; a round that fails is an Error.
RoundsOutcome judge_in_rounds(RoundJudge& judge, std::string_view profile, const std::vector<Candidate>& ranked,
                              const RoundOptions& options);

}  // namespace sift::label
