#include "batch/file_digest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"

namespace sift::batch {
namespace {

constexpr size_t kDigestReadBytes = size_t(1) << 20;

std::string hex(const uint8_t* bytes, size_t n) {
  std::string text;
  text.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) text += fmt::format("{:02x}", bytes[i]);
  return text;
}

std::string state_hex(const uint32_t (&words)[_SHA256_DIGEST_LENGTH]) {
  std::array<uint8_t, 4 * _SHA256_DIGEST_LENGTH> bytes;
  for (size_t w = 0; w < _SHA256_DIGEST_LENGTH; ++w)
    for (size_t b = 0; b < 4; ++b) bytes[4 * w + b] = uint8_t(words[w] >> (24 - 8 * b));
  return hex(bytes.data(), bytes.size());
}

// The chaining words of 64 hex digits; nullopt when it is not that.
std::optional<std::array<uint32_t, _SHA256_DIGEST_LENGTH>> parse_state(const std::string& text) {
  if (text.size() != 8 * _SHA256_DIGEST_LENGTH) return std::nullopt;
  std::array<uint32_t, _SHA256_DIGEST_LENGTH> words{};
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return std::nullopt;
    words[i / 8] = words[i / 8] << 4 | uint32_t(digit);
  }
  return words;
}

}  // namespace

FileDigest::FileDigest() {
  sha256_init(&context_);
  midstate_ = {0, state_hex(context_.state)};
}

void FileDigest::add(std::string_view bytes) {
  while (!bytes.empty()) {  // up to the next whole MiB, where the midstate is taken
    const size_t n = size_t(std::min<int64_t>(kMidstateBytes - bytes_ % kMidstateBytes, int64_t(bytes.size())));
    sha256_update(&context_, n, reinterpret_cast<const uint8_t*>(bytes.data()));
    bytes_ += int64_t(n);
    bytes.remove_prefix(n);
    if (bytes_ % kMidstateBytes == 0) midstate_ = {bytes_, state_hex(context_.state)};
  }
}

FileCheckpoint FileDigest::checkpoint() const {
  sha256_ctx finishing = context_;  // sha256_digest resets the context it finishes
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&finishing, sizeof digest, digest);
  return {bytes_, hex(digest, sizeof digest), midstate_};
}

FileDigest FileDigest::resume(const std::filesystem::path& path, const FileCheckpoint& recorded,
                              const std::filesystem::path& record) {
  const Sha256Midstate& midstate = recorded.midstate;
  const std::optional<std::array<uint32_t, _SHA256_DIGEST_LENGTH>> words = parse_state(midstate.state);
  if (!words || !midstate_in_place(recorded))
    fail("{}: the SHA-256 midstate it records for {} (at byte {}) is not the one of the last whole MiB of its {} "
         "bytes: the progress file was changed",
         record.string(), path.string(), midstate.bytes, recorded.bytes);
  FileDigest digest;
  std::copy(words->begin(), words->end(), digest.context_.state);
  digest.context_.count = uint64_t(midstate.bytes) / SHA256_BLOCK_SIZE;  // whole blocks, none pending
  digest.context_.index = 0;
  digest.bytes_ = midstate.bytes;
  digest.midstate_ = midstate;

  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("{}: cannot open to check it against {}: {}", path.string(), record.string(), std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || info.st_size < recorded.bytes) {
    ::close(fd);
    fail("{}: {} bytes, but {} records {}: it was changed outside sift batch", path.string(), int64_t(info.st_size),
         record.string(), recorded.bytes);
  }
  std::vector<char> block(kDigestReadBytes);
  for (int64_t at = midstate.bytes; at < recorded.bytes;) {
    const ssize_t n = ::pread(fd, block.data(), size_t(std::min<int64_t>(int64_t(block.size()), recorded.bytes - at)), at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      fail("{}: cannot read byte {}: {}", path.string(), at, std::strerror(error));
    }
    digest.add({block.data(), size_t(n)});
    at += n;
  }
  ::close(fd);
  if (digest.checkpoint().sha256 != recorded.sha256)
    fail("{}: its first {} bytes do not have the SHA-256 that {} records: one of the two was changed outside sift "
         "batch, or the progress file is another output's; nothing was changed",
         path.string(), recorded.bytes, record.string());
  return digest;
}

FileCheckpoint empty_file_checkpoint() { return FileDigest().checkpoint(); }

bool midstate_in_place(const FileCheckpoint& file) {
  const int64_t at = file.midstate.bytes;
  return parse_state(file.midstate.state) && at >= 0 && at % kMidstateBytes == 0 && at <= file.bytes &&
         file.bytes - at < kMidstateBytes;
}

}  // namespace sift::batch
