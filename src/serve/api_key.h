#pragma once
// Bearer-token check for `sift serve --api-key-file F`: the file holds one key on one line
// (surrounding whitespace and blank lines ignored; a second non-blank line is an error naming
// it, not a second key). The key is printable ASCII without spaces, as a client can send it: a
// byte-order mark, a NUL, a control character or a non-ASCII byte is an error at start-up
// naming the file, the line and the byte, not a server nobody can use. A request is let in when its header is exactly
// "Authorization: Bearer <key>". The comparison takes the same time whatever the header
// holds: both sides are hashed (SHA-256) and the digests compared with CRYPTO_memcmp, so
// neither the key's bytes nor its length leak through timing.
#include <array>
#include <filesystem>
#include <string_view>

namespace sift::serve {

class ApiKey {
 public:
  // Throws Error naming the file when it cannot be read or holds no key, or no key a client can send.
  static ApiKey load(const std::filesystem::path& file);
  static ApiKey of(std::string_view key);
  bool accepts(std::string_view authorization_header) const;

 private:
  std::array<unsigned char, 32> digest_{};
};

}  // namespace sift::serve
