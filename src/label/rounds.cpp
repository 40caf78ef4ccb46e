#include "label/rounds.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace sift::label {

void RoundOptions::validate() const {
  constexpr int64_t kMaxK = 10'000, kMaxRounds = 1'000;  // keeps k * max_rounds far from overflow
  if (k < 1 || k > kMaxK) fail_option("--k must be in [1, {}], got {}", kMaxK, k);
  if (max_rounds < 1 || max_rounds > kMaxRounds) fail_option("--max-rounds must be in [1, {}], got {}", kMaxRounds, max_rounds);
  if (!std::isfinite(stop_below) || stop_below < 0 || stop_below > 1)
    fail_option("--stop-below must be in [0, 1], got {}", stop_below);
}

std::string_view stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::below_threshold: return "below_threshold";
    case StopReason::max_rounds: return "max_rounds";
    case StopReason::exhausted: return "exhausted";
  }
  return "?";
}

bool round_is_below(int64_t accepted, int64_t judged, double stop_below) {
  return judged > 0 && double(accepted) < stop_below * double(judged);
}

namespace {

// Where one profile stands: the candidates it may still be judged on, its outcome so far.
struct Going {
  size_t index = 0;  // into the group
  size_t n = 0;      // candidates it may be judged on
  size_t next = 0;   // the first not yet judged
  RoundsOutcome outcome;
  bool done = false;
};

// Records round `verdicts` of `going` (its candidates [next, end)); true when it stops there.
bool record_round(Going& going, const std::vector<Candidate>& ranked, size_t end, const RoundJudge::Verdicts& verdicts,
                  const RoundOptions& options) {
  RoundsOutcome& outcome = going.outcome;
  outcome.rounds += 1;
  outcome.prefill_tokens += verdicts.prefill_tokens;
  int64_t accepted = 0;
  for (size_t i = going.next; i < end; ++i) {
    const bool label = verdicts.labels[i - going.next];
    accepted += label;
    outcome.judgments.push_back(
        {ranked[i].id, ranked[i].name, verdicts.scores[i - going.next], label, outcome.rounds, int64_t(i) + 1});
  }
  outcome.accepted += accepted;
  const int64_t judged = int64_t(end - going.next);
  going.next = end;
  if (round_is_below(accepted, judged, options.stop_below)) {
    outcome.stop = StopReason::below_threshold;
    return true;
  }
  if (going.next < going.n) return false;
  // Ran out of candidates before the last allowed round, or used every round.
  outcome.stop = ranked.size() < size_t(options.max_candidates()) ? StopReason::exhausted : StopReason::max_rounds;
  return true;
}

}  // namespace

std::vector<RoundsOutcome> judge_in_rounds(RoundJudge& judge, std::span<const ProfileCandidates> profiles,
                                           const RoundOptions& options) {
  const size_t k = size_t(options.k);
  std::vector<Going> going(profiles.size());
  for (size_t p = 0; p < profiles.size(); ++p) {
    going[p].index = p;
    going[p].n = std::min(profiles[p].ranked->size(), size_t(options.max_candidates()));
    if (going[p].n == 0) {  // no candidates: no round, no model work
      going[p].outcome.stop = StopReason::exhausted;
      going[p].done = true;
    }
  }
  while (true) {
    std::vector<Going*> active;
    std::vector<RoundJudge::Round> rounds;
    for (Going& g : going) {
      if (g.done) continue;
      const std::vector<Candidate>& ranked = *profiles[g.index].ranked;
      RoundJudge::Round round{profiles[g.index].profile, {}};
      for (size_t i = g.next; i < std::min(g.n, g.next + k); ++i) round.candidates.push_back(ranked[i].name);
      active.push_back(&g);
      rounds.push_back(std::move(round));
    }
    if (active.empty()) break;
    const std::vector<RoundJudge::Verdicts> verdicts = judge.judge(rounds);
    for (size_t a = 0; a < active.size(); ++a) {
      Going& g = *active[a];
      if (!verdicts[a].error.empty()) {
        g.outcome.error = verdicts[a].error;
        g.done = true;
        continue;
      }
      g.done = record_round(g, *profiles[g.index].ranked, std::min(g.n, g.next + k), verdicts[a], options);
    }
  }
  std::vector<RoundsOutcome> outcomes;
  outcomes.reserve(going.size());
  for (Going& g : going) outcomes.push_back(std::move(g.outcome));
  return outcomes;
}

RoundsOutcome judge_in_rounds(RoundJudge& judge, std::string_view profile, const std::vector<Candidate>& ranked,
                              const RoundOptions& options) {
  const ProfileCandidates one{profile, &ranked};
  RoundsOutcome outcome = std::move(judge_in_rounds(judge, {&one, 1}, options)[0]);
  if (!outcome.error.empty()) fail("{}", outcome.error);
  return outcome;
}

}  // namespace sift::label
