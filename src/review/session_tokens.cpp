#include "review/session_tokens.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include <array>

#include <fmt/format.h>

#include "core/error.h"

namespace sift::review {

namespace {

std::string digest_of(std::string_view token) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest.data());
  return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
}

}  // namespace

std::string random_token() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), int(bytes.size())) != 1) fail("sift review: no random bytes for a token");
  std::string hex;
  for (unsigned char b : bytes) hex += fmt::format("{:02x}", b);
  return hex;
}

std::string SessionTokens::issue() {
  std::string token = random_token();
  std::lock_guard lock(mutex_);
  if (oldest_first_.size() == kMaxSessions) {
    digests_.erase(oldest_first_.front());
    oldest_first_.pop_front();
  }
  std::string digest = digest_of(token);
  digests_.insert(digest);
  oldest_first_.push_back(std::move(digest));
  return token;
}

bool SessionTokens::valid(std::string_view token) const {
  const std::string digest = digest_of(token);
  std::lock_guard lock(mutex_);
  return digests_.contains(digest);
}

}  // namespace sift::review
