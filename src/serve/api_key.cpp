#include "serve/api_key.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/error.h"

namespace sift::serve {
namespace {

std::array<unsigned char, 32> sha256(std::string_view text) {
  std::array<unsigned char, 32> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest.data());
  return digest;
}

}  // namespace

ApiKey ApiKey::load(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) fail("{}: cannot read the API key file", file.string());
  std::stringstream text;
  text << in.rdbuf();
  std::string key = text.str();
  const auto first = key.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) fail("{}: the API key file is empty", file.string());
  key = key.substr(first, key.find_last_not_of(" \t\r\n") - first + 1);
  ApiKey api_key;
  api_key.digest_ = sha256("Bearer " + key);
  return api_key;
}

bool ApiKey::accepts(std::string_view authorization_header) const {
  const std::array<unsigned char, 32> given = sha256(authorization_header);
  return CRYPTO_memcmp(given.data(), digest_.data(), digest_.size()) == 0;
}

}  // namespace sift::serve
