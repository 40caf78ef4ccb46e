#include "remote/fleet_policy.h"

#include <algorithm>

#include <fmt/format.h>

namespace sift::remote {

FleetPolicy::FleetPolicy(size_t n_engines, const FleetSettings& settings, uint64_t seed)
    : settings_(settings), engines_(n_engines), random_(seed) {}

bool FleetPolicy::may_take(const EngineState& engine, TimePoint now) const {
  if (now < engine.paused_until) return false;
  if (engine.ejected_until) return now >= *engine.ejected_until && engine.in_flight == 0;  // a probe
  if (engine.probing) return engine.in_flight == 0;
  return engine.in_flight < settings_.max_in_flight;
}

std::optional<size_t> FleetPolicy::choose(int64_t tokens, TimePoint now) {
  std::optional<size_t> best;
  for (size_t k = 0; k < engines_.size(); ++k) {
    const size_t e = (next_ + k) % engines_.size();
    const EngineState& engine = engines_[e];
    if (!may_take(engine, now)) continue;
    if (!best || engine.outstanding_tokens < engines_[*best].outstanding_tokens ||
        (engine.outstanding_tokens == engines_[*best].outstanding_tokens &&
         engine.in_flight < engines_[*best].in_flight))
      best = e;
  }
  if (!best) return std::nullopt;
  EngineState& engine = engines_[*best];
  if (engine.ejected_until) {  // its ejection is over: this request probes it
    engine.ejected_until.reset();
    engine.probing = true;
  }
  engine.in_flight += 1;
  engine.outstanding_tokens += tokens;
  next_ = (*best + 1) % engines_.size();
  return best;
}

void FleetPolicy::finished(size_t e, int64_t tokens, Outcome outcome, TimePoint now,
                           std::optional<Duration> retry_after, const std::string& failure) {
  EngineState& engine = engines_[e];
  engine.in_flight -= 1;
  engine.outstanding_tokens -= tokens;
  const auto pause = [&](Duration fallback) {
    const Duration wait = std::min(retry_after.value_or(fallback), settings_.max_retry_after);
    engine.paused_until = std::max(engine.paused_until, now + wait);
  };
  switch (outcome) {
    case Outcome::Answered:
      engine.last_failure.clear();
      engine.last_answer = now;
      engine.failures_in_row = 0;
      engine.ejections = 0;
      engine.probing = false;
      last_answer_ = now;
      return;
    case Outcome::Busy:
      engine.last_failure = failure;
      pause(settings_.default_retry_after);
      return;
    case Outcome::Failed:
      engine.last_failure = failure;
      engine.failures_in_row += 1;
      if (retry_after) pause(*retry_after);
      if (engine.probing || engine.failures_in_row >= settings_.eject_after) {
        const int doublings = std::min(engine.ejections, 20);
        engine.ejected_until = now + std::min(settings_.eject_cap, settings_.eject_base * (int64_t{1} << doublings));
        engine.ejections += 1;
        engine.probing = false;
      }
      return;
  }
}

Duration FleetPolicy::backoff(int attempts) {
  const int doublings = std::clamp(attempts - 1, 0, 20);
  const Duration full = std::min(settings_.backoff_cap, settings_.backoff_base * (int64_t{1} << doublings));
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return std::chrono::duration_cast<Duration>(full * jitter(random_));
}

void FleetPolicy::work_arrived(TimePoint now) {
  if (!idle_) return;
  idle_ = false;
  waiting_since_ = now;
}

bool FleetPolicy::timed_out(TimePoint now) const {
  return !idle_ && now - std::max(last_answer_, waiting_since_) > settings_.timeout;
}

std::optional<TimePoint> FleetPolicy::next_change(TimePoint now) const {
  std::optional<TimePoint> next;
  const auto consider = [&](TimePoint t) {
    if (t > now && (!next || t < *next)) next = t;
  };
  for (const EngineState& engine : engines_) {
    consider(engine.paused_until);
    if (engine.ejected_until) consider(*engine.ejected_until);
  }
  return next;
}

std::string FleetPolicy::failures(const std::vector<std::string>& urls, TimePoint now) const {
  std::string text;
  for (size_t e = 0; e < engines_.size(); ++e) {
    if (!text.empty()) text += "; ";
    const EngineState& engine = engines_[e];
    std::string last = engine.last_failure;
    if (last.empty())
      last = engine.last_answer
                 ? fmt::format("answered {:.1f} s ago", std::chrono::duration<double>(now - *engine.last_answer).count())
                 : "no answer yet";
    text += fmt::format("{}: {}{}", urls[e], last, engine.ejected_until ? " (ejected)" : "");
  }
  return text;
}

}  // namespace sift::remote
