#include "serve/api_key.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <fstream>
#include <optional>
#include <string>

#include "core/error.h"

namespace sift::serve {
namespace {

std::array<unsigned char, 32> sha256(std::string_view text) {
  std::array<unsigned char, 32> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest.data());
  return digest;
}

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

ApiKey ApiKey::load(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) fail("{}: cannot read the API key file", file.string());
  std::optional<std::string> key;
  int n_line = 0;
  for (std::string line; std::getline(in, line);) {
    ++n_line;
    const std::string_view text = trimmed(line);
    if (text.empty()) continue;
    if (key)
      fail("{}:{}: a second line with text; the API key file holds one key, on one line", file.string(), n_line);
    key = std::string(text);
  }
  if (in.bad()) fail("{}: cannot read the API key file", file.string());
  if (!key) fail("{}: the API key file is empty", file.string());
  return of(*key);
}

ApiKey ApiKey::of(std::string_view key) {
  ApiKey api_key;
  api_key.digest_ = sha256("Bearer " + std::string(key));
  return api_key;
}

bool ApiKey::accepts(std::string_view authorization_header) const {
  const std::array<unsigned char, 32> given = sha256(authorization_header);
  return CRYPTO_memcmp(given.data(), digest_.data(), digest_.size()) == 0;
}

}  // namespace sift::serve
