// The fleet's rules without sockets (remote/fleet_policy.h): balancing by outstanding tokens,
// the in-flight bound, 429 and Retry-After, ejection and probing, backoff with jitter, and the
// timeout that counts from the last answer.
#include "remote/fleet_policy.h"

#include <gtest/gtest.h>

#include <set>

namespace sift::remote {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

FleetSettings settings(int max_in_flight = 2) {
  FleetSettings s;
  s.max_in_flight = max_in_flight;
  s.timeout = seconds(10);
  s.eject_after = 3;
  s.eject_base = seconds(1);
  s.eject_cap = seconds(4);
  return s;
}

TEST(FleetPolicy, ChoosesTheEngineWithTheFewestOutstandingTokens) {
  FleetPolicy policy(3, settings(4));
  const TimePoint t0{};
  EXPECT_EQ(policy.choose(100, t0), 0u);
  EXPECT_EQ(policy.choose(10, t0), 1u);
  EXPECT_EQ(policy.choose(10, t0), 2u);
  EXPECT_EQ(policy.choose(5, t0), 1u);  // 1 and 2 hold 10 each: the first of them in turn
  EXPECT_EQ(policy.state(1).outstanding_tokens + policy.state(2).outstanding_tokens, 25);
  policy.finished(0, 100, Outcome::Answered, t0);
  EXPECT_EQ(policy.state(0).outstanding_tokens, 0);
  EXPECT_EQ(policy.choose(1, t0), 0u);
}

TEST(FleetPolicy, KeepsAtMostMaxInFlightPerEngine) {
  FleetPolicy policy(2, settings(2));
  const TimePoint t0{};
  std::multiset<size_t> chosen;
  for (int i = 0; i < 4; ++i) chosen.insert(*policy.choose(1, t0));
  EXPECT_EQ(chosen.count(0), 2u);
  EXPECT_EQ(chosen.count(1), 2u);
  EXPECT_FALSE(policy.choose(1, t0).has_value());
  policy.finished(1, 1, Outcome::Answered, t0);
  EXPECT_EQ(policy.choose(1, t0), 1u);
}

TEST(FleetPolicy, BusyPausesForRetryAfterWithoutCountingAFailure) {
  FleetPolicy policy(2, settings(1));
  const TimePoint t0{};
  ASSERT_EQ(policy.choose(1, t0), 0u);
  policy.finished(0, 1, Outcome::Busy, t0, seconds(2), "429: queue full");
  EXPECT_EQ(policy.state(0).failures_in_row, 0);
  EXPECT_EQ(policy.choose(1, t0 + seconds(1)), 1u);                  // 0 is paused
  EXPECT_FALSE(policy.choose(1, t0 + seconds(1)).has_value());       // 1 is full, 0 paused
  EXPECT_EQ(policy.next_change(t0 + seconds(1)), t0 + seconds(2));
  EXPECT_EQ(policy.choose(1, t0 + seconds(2)), 0u);                  // the pause is over
}

TEST(FleetPolicy, BusyWithoutRetryAfterPausesForTheDefault) {
  FleetSettings s = settings(1);
  s.default_retry_after = milliseconds(300);
  FleetPolicy policy(1, s);
  const TimePoint t0{};
  ASSERT_TRUE(policy.choose(1, t0));
  policy.finished(0, 1, Outcome::Busy, t0);
  EXPECT_FALSE(policy.choose(1, t0 + milliseconds(299)).has_value());
  EXPECT_TRUE(policy.choose(1, t0 + milliseconds(300)).has_value());
}

TEST(FleetPolicy, EjectsAfterFailuresInARowAndProbesBackOneAtATime) {
  FleetPolicy policy(2, settings(2));
  const TimePoint t0{};
  ASSERT_EQ(policy.choose(1, t0), 0u);
  ASSERT_EQ(policy.choose(1000, t0), 1u);  // engine 1 now holds more tokens: 0 is chosen next
  policy.finished(0, 1, Outcome::Failed, t0, std::nullopt, "connection refused");
  for (int i = 0; i < 2; ++i) {
    EXPECT_FALSE(policy.state(0).ejected_until.has_value());
    ASSERT_EQ(policy.choose(1, t0), 0u);
    policy.finished(0, 1, Outcome::Failed, t0, std::nullopt, "connection refused");
  }
  ASSERT_TRUE(policy.state(0).ejected_until.has_value());
  EXPECT_EQ(*policy.state(0).ejected_until, t0 + seconds(1));
  // Ejected: only 1 takes requests, until it is full.
  EXPECT_EQ(policy.choose(1, t0 + milliseconds(999)), 1u);
  EXPECT_FALSE(policy.choose(1, t0 + milliseconds(999)).has_value());
  // The ejection is over: one probe, no second request beside it.
  EXPECT_EQ(policy.choose(1, t0 + seconds(1)), 0u);
  EXPECT_TRUE(policy.state(0).probing);
  EXPECT_FALSE(policy.choose(1, t0 + seconds(1)).has_value());
  // The probe fails: ejected again, for twice as long.
  policy.finished(0, 1, Outcome::Failed, t0 + seconds(1), std::nullopt, "connection refused");
  EXPECT_EQ(*policy.state(0).ejected_until, t0 + seconds(3));
  // ... and at most eject_cap.
  ASSERT_EQ(policy.choose(1, t0 + seconds(3)), 0u);
  policy.finished(0, 1, Outcome::Failed, t0 + seconds(3), std::nullopt, "connection refused");
  ASSERT_EQ(policy.choose(1, t0 + seconds(7)), 0u);
  policy.finished(0, 1, Outcome::Failed, t0 + seconds(7), std::nullopt, "connection refused");
  EXPECT_EQ(*policy.state(0).ejected_until, t0 + seconds(11));  // 4 s, the cap
  // A probe answered: back in rotation, failures forgotten, two in flight again.
  ASSERT_EQ(policy.choose(1, t0 + seconds(11)), 0u);
  policy.finished(0, 1, Outcome::Answered, t0 + seconds(11));
  EXPECT_FALSE(policy.state(0).probing);
  EXPECT_EQ(policy.state(0).failures_in_row, 0);
  EXPECT_EQ(policy.choose(1, t0 + seconds(11)), 0u);
  EXPECT_EQ(policy.choose(1, t0 + seconds(11)), 0u);
}

TEST(FleetPolicy, AnAnswerBetweenFailuresKeepsTheEngineIn) {
  FleetPolicy policy(1, settings(1));
  const TimePoint t0{};
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(policy.choose(1, t0));
      policy.finished(0, 1, Outcome::Failed, t0, std::nullopt, "503");
    }
    ASSERT_TRUE(policy.choose(1, t0));
    policy.finished(0, 1, Outcome::Answered, t0);
  }
  EXPECT_FALSE(policy.state(0).ejected_until.has_value());
}

TEST(FleetPolicy, BackoffDoublesWithJitterUpToTheCap) {
  FleetSettings s = settings();
  s.backoff_base = milliseconds(100);
  s.backoff_cap = milliseconds(1000);
  FleetPolicy policy(1, s);
  std::set<Duration::rep> seen;
  for (int attempts = 1; attempts <= 8; ++attempts) {
    const Duration full = std::min<Duration>(s.backoff_cap, s.backoff_base * (1 << (attempts - 1)));
    for (int k = 0; k < 50; ++k) {
      const Duration wait = policy.backoff(attempts);
      EXPECT_GE(wait, full / 2) << attempts;
      EXPECT_LE(wait, full) << attempts;
      seen.insert(wait.count());
    }
  }
  EXPECT_GT(seen.size(), 100u);  // jittered, not a fixed schedule
}

TEST(FleetPolicy, TimesOutOnlyWhenNoEngineAnsweredForTheTimeoutWhileWorkWaits) {
  FleetPolicy policy(2, settings(1));
  const TimePoint t0 = TimePoint{} + seconds(100);
  EXPECT_FALSE(policy.timed_out(t0 + seconds(1000)));  // idle: nothing waits
  policy.work_arrived(t0);
  EXPECT_FALSE(policy.timed_out(t0 + seconds(10)));
  EXPECT_TRUE(policy.timed_out(t0 + seconds(11)));
  ASSERT_TRUE(policy.choose(1, t0 + seconds(5)));
  policy.finished(0, 1, Outcome::Answered, t0 + seconds(5));
  EXPECT_FALSE(policy.timed_out(t0 + seconds(15)));
  EXPECT_TRUE(policy.timed_out(t0 + seconds(16)));
  // 429s are answers of a kind, but not scores: they do not hold the timeout off.
  ASSERT_TRUE(policy.choose(1, t0 + seconds(12)));
  policy.finished(0, 1, Outcome::Busy, t0 + seconds(12), seconds(1), "429");
  EXPECT_TRUE(policy.timed_out(t0 + seconds(16)));
  // Drained and later busy again: the clock starts with the new work.
  policy.work_drained();
  EXPECT_FALSE(policy.timed_out(t0 + seconds(100)));
  policy.work_arrived(t0 + seconds(100));
  EXPECT_FALSE(policy.timed_out(t0 + seconds(105)));
}

TEST(FleetPolicy, FailuresNameEveryEngine) {
  FleetPolicy policy(2, settings(1));
  const TimePoint t0{};
  ASSERT_EQ(policy.choose(1, t0), 0u);
  policy.finished(0, 1, Outcome::Failed, t0, std::nullopt, "cannot connect: Connection refused");
  EXPECT_EQ(policy.failures({"http://a:1", "http://b:2"}, t0),
            "http://a:1: cannot connect: Connection refused; http://b:2: no answer yet");
  ASSERT_EQ(policy.choose(1, t0), 1u);
  policy.finished(1, 1, Outcome::Answered, t0);
  EXPECT_EQ(policy.failures({"http://a:1", "http://b:2"}, t0 + milliseconds(2500)),
            "http://a:1: cannot connect: Connection refused; http://b:2: answered 2.5 s ago");
}

}  // namespace
}  // namespace sift::remote
