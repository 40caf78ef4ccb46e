#pragma once
// Failed logins of `sift review --api-key-file`, counted per client: a wrong key at POST
// /login or in "Authorization: Bearer". After kMaxFailures in a row a client is blocked for
// kBlock: every attempt it makes meanwhile, with a right key or a wrong one, is refused
// (429 with Retry-After) without the key being looked at, so a key is guessed at no more
// than kMaxFailures tries per kBlock, and a refusal says nothing about the key tried. A
// right key ends the run of failures. At most kMaxClients clients are tracked; past that,
// those whose block has ended (and who failed none since) are forgotten, and new ones share
// one count. Thread-safe.
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace sift::review {

class LoginThrottle {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int kMaxFailures = 10;
  static constexpr std::chrono::seconds kBlock{60};
  static constexpr size_t kMaxClients = 10'000;

  // Whole seconds (at least 1) until `client` may try a key again; nullopt: it may now.
  std::optional<int> blocked_for(const std::string& client, Clock::time_point now = Clock::now());
  void failed(const std::string& client, Clock::time_point now = Clock::now());
  void succeeded(const std::string& client);

 private:
  struct Record {
    int failures = 0;                     // in a row, since the last block or right key
    Clock::time_point blocked_until = {};
  };
  // The record `client` counts against, made room for.
  Record& record_of(const std::string& client, Clock::time_point now);

  std::mutex mutex_;
  std::unordered_map<std::string, Record> clients_;
};

}  // namespace sift::review
