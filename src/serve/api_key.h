#pragma once
// Bearer-token check for `sift serve --api-key-file F`: the file holds one key on one line
// (surrounding whitespace and blank lines ignored; a second non-blank line is an error naming
// it, not a second key). A request is let in when its header is exactly
// "Authorization: Bearer <key>". The comparison takes the same time whatever the header
// holds: both sides are hashed (SHA-256) and the digests compared with CRYPTO_memcmp, so
// neither the key's bytes nor its length leak through timing.
#include <array>
#include <filesystem>
#include <string_view>

namespace sift::serve {

class ApiKey {
 public:
  // Throws Error naming the file when it cannot be read or holds no key.
  static ApiKey load(const std::filesystem::path& file);
  static ApiKey of(std::string_view key);
  bool accepts(std::string_view authorization_header) const;

 private:
  std::array<unsigned char, 32> digest_{};
};

}  // namespace sift::serve
