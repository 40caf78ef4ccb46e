#pragma once
// The logins of `sift review --api-key-file`: each successful login gets a session token of
// its own (256 random bits, the session cookie's value), so the key itself is never a cookie
// and no two browsers share one. Tokens live as long as the server, at most kMaxSessions at
// once (a login past that ends the oldest session). Only their SHA-256 digests are kept, and
// a token presented is looked up by its digest, so the lookup's time says nothing about the
// tokens held. Thread-safe.
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

namespace sift::review {

// 32 random bytes (OpenSSL's RAND_bytes) as 64 hex digits; an Error when there are none.
std::string random_token();

class SessionTokens {
 public:
  static constexpr size_t kMaxSessions = 1000;

  // A new session's token.
  std::string issue();
  // Whether `token` is one issue() gave and still live.
  bool valid(std::string_view token) const;

 private:
  mutable std::mutex mutex_;
  std::unordered_set<std::string> digests_;
  std::deque<std::string> oldest_first_;  // the same digests, in the order issued
};

}  // namespace sift::review
