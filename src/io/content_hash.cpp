#include "io/content_hash.h"

#include <openssl/evp.h>

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "io/labeler_files.h"

namespace sift {

namespace {

class Sha256 {
 public:
  Sha256() : context_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    if (!context_ || EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) != 1) fail("SHA-256 is unavailable");
  }
  void add(std::string_view bytes) { EVP_DigestUpdate(context_.get(), bytes.data(), bytes.size()); }
  std::vector<unsigned char> digest() {
    std::vector<unsigned char> out(EVP_MAX_MD_SIZE);
    unsigned int n = 0;
    EVP_DigestFinal_ex(context_.get(), out.data(), &n);
    out.resize(n);
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> context_;
};

std::string hex(const std::vector<unsigned char>& bytes) {
  std::string text;
  text.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) text += fmt::format("{:02x}", b);
  return text;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  Sha256 sha;
  sha.add(bytes);
  return hex(sha.digest());
}

uint64_t stable_hash64(std::string_view text) {
  Sha256 sha;
  sha.add(text);
  const std::vector<unsigned char> digest = sha.digest();
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = value << 8 | digest[size_t(i)];
  return value;
}

namespace {

// What a labeler directory's files are, as stat gives them (name, device, inode, size,
// modification time in ns): a file rewritten or replaced changes it, so a fingerprint
// remembered for it is still the fingerprint of those bytes.
std::string files_state(const std::vector<std::filesystem::path>& files) {
  std::string state;
  for (const std::filesystem::path& file : files) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) return {};  // unknown: hash it
    state += fmt::format("{}|{}|{}|{}|{}.{}\n", file.string(), st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec,
                         st.st_mtim.tv_nsec);
  }
  return state;
}

std::string hash_files(const std::vector<std::filesystem::path>& files) {
  Sha256 sha;
  std::vector<char> block(size_t(1) << 20);
  for (const std::filesystem::path& file : files) {
    std::ifstream stream(file, std::ios::binary);
    if (!stream) fail("{}: cannot open for reading", file.string());
    sha.add(fmt::format("{}\n{}\n", file.filename().string(), std::filesystem::file_size(file)));
    while (stream) {
      stream.read(block.data(), std::streamsize(block.size()));
      sha.add(std::string_view(block.data(), size_t(stream.gcount())));
    }
    if (stream.bad()) fail("{}: read error", file.string());
  }
  return "sha256:" + hex(sha.digest());
}

}  // namespace

std::string sha256_file_hex(const std::filesystem::path& file) {
  std::ifstream stream(file, std::ios::binary);
  if (!stream) fail("{}: cannot open for reading", file.string());
  Sha256 sha;
  std::vector<char> block(size_t(1) << 20);
  while (stream) {
    stream.read(block.data(), std::streamsize(block.size()));
    sha.add(std::string_view(block.data(), size_t(stream.gcount())));
  }
  if (stream.bad()) fail("{}: read error", file.string());
  return hex(sha.digest());
}

std::string artifact_fingerprint(const std::filesystem::path& model_dir) {
  std::error_code error;
  const std::vector<std::filesystem::path> files = labeler_files(model_dir, error);
  if (error) fail("{}: cannot list the labeler directory: {}", model_dir.string(), error.message());
  // A process fingerprints a directory once (sift batch --engine: the job's fingerprint and the
  // engines' identity check), unless its files changed in between.
  static std::mutex mutex;
  static std::map<std::string, std::string> known;  // files_state -> fingerprint
  const std::string state = files_state(files);
  if (!state.empty()) {
    const std::lock_guard lock(mutex);
    if (auto it = known.find(state); it != known.end()) return it->second;
  }
  std::string fingerprint = hash_files(files);
  if (!state.empty()) {
    const std::lock_guard lock(mutex);
    known.emplace(state, fingerprint);
  }
  return fingerprint;
}

}  // namespace sift
