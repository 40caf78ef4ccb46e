#include "serve/api_key.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <fmt/format.h>

#include <algorithm>
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

// An API key file is a key and a newline: anything larger is not one.
constexpr size_t kMaxFileBytes = 64 * 1024;

// Why `byte` cannot be part of a key, or nullptr when it can.
const char* unfit_for_a_key(unsigned char byte) {
  if (byte == 0) return "a NUL";
  if (byte == ' ') return "a space";
  if (byte < 0x20 || byte == 0x7F) return "a control character";
  if (byte >= 0x80) return "not ASCII";
  return nullptr;
}

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

ApiKey ApiKey::load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail("{}: cannot read the API key file", file.string());
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) fail("{}: cannot read the API key file", file.string());
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxFileBytes)
    fail("{}: larger than {} bytes; the API key file holds one key, on one line", file.string(), kMaxFileBytes);
  if (text.starts_with("\xEF\xBB\xBF"))
    fail("{}: byte 1: a UTF-8 byte-order mark (EF BB BF); save the file without one (the key is printable ASCII)",
         file.string());
  std::optional<std::string_view> key;
  int n_line = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    ++n_line;
    const std::string_view line = trimmed(std::string_view(text).substr(start, end - start));
    start = end + 1;
    if (line.empty()) continue;
    if (key)
      fail("{}:{}: a second line with text; the API key file holds one key, on one line", file.string(), n_line);
    for (const char& c : line)
      if (const char* why = unfit_for_a_key(static_cast<unsigned char>(c)))
        fail("{}:{}: byte {} (0x{:02X}) is {}: a key is printable ASCII, with no spaces (a client could not send it "
             "in \"Authorization: Bearer <key>\")",
             file.string(), n_line, &c - text.data() + 1, static_cast<unsigned char>(c), why);
    key = line;
  }
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
