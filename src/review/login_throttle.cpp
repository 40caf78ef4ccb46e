#include "review/login_throttle.h"

#include <cmath>

namespace sift::review {

namespace {

// Where failures of clients past kMaxClients are counted (no client address is empty).
const std::string kOverflow;

}  // namespace

std::optional<int> LoginThrottle::blocked_for(const std::string& client, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto it = clients_.find(client);
  if (it == clients_.end() && clients_.size() >= kMaxClients) it = clients_.find(kOverflow);
  if (it == clients_.end() || it->second.blocked_until <= now) return std::nullopt;
  const double seconds = std::chrono::duration<double>(it->second.blocked_until - now).count();
  return std::max(1, int(std::ceil(seconds)));
}

void LoginThrottle::failed(const std::string& client, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  Record& record = record_of(client, now);
  if (++record.failures < kMaxFailures) return;
  record.failures = 0;
  record.blocked_until = now + kBlock;
}

void LoginThrottle::succeeded(const std::string& client) {
  std::lock_guard lock(mutex_);
  clients_.erase(client);
}

LoginThrottle::Record& LoginThrottle::record_of(const std::string& client, Clock::time_point now) {
  if (clients_.size() >= kMaxClients && !clients_.contains(client))
    std::erase_if(clients_, [&](const auto& entry) {  // blocked once, not since, and no failure after
      return entry.second.failures == 0 && entry.second.blocked_until <= now;
    });
  if (clients_.size() >= kMaxClients && !clients_.contains(client)) return clients_[kOverflow];
  return clients_[client];
}

}  // namespace sift::review
