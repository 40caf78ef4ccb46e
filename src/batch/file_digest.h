#pragma once
// FileDigest: the SHA-256 of what an append-only file of `sift batch` holds (OUT, its tail
// file), kept as bytes are appended, so that a checkpoint records it at no extra cost and a
// resumed run, in another process, checks the file and goes on hashing without reading it
// all again.
//
// The digest is the plain SHA-256 of the file's first n bytes (`head -c n OUT | sha256sum`
// prints it). Resuming needs SHA-256's state part way, and a checkpoint keeps one: the
// midstate, the eight 32-bit chaining words after the first m bytes, taken at every whole MiB
// (kMidstateBytes, a whole number of 64-byte blocks, so no partial block is left over), so
// m <= n < m + 1 MiB. A resumed digest starts from the midstate and reads the n - m bytes
// after it (less than a MiB, whatever the file's length), which must give the recorded
// digest: the end of the file, where a crash leaves its mark, is checked every time; an edit
// before byte m is not seen then, but is by `sift batch merge`, which hashes whole shards,
// and by anyone who hashes the output.
//
// SHA-256 is nettle's (Debian's nettle-dev): its context is a plain struct whose chaining
// words can be read and set; OpenSSL's EVP interface has no way to export them.
#include <nettle/sha2.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace sift::batch {

inline constexpr int64_t kMidstateBytes = int64_t(1) << 20;

struct Sha256Midstate {
  int64_t bytes = 0;  // a multiple of kMidstateBytes
  std::string state;  // the eight chaining words after those bytes, big-endian: 64 hex digits
  bool operator==(const Sha256Midstate&) const = default;
};

// What a checkpoint records of one append-only file.
struct FileCheckpoint {
  int64_t bytes = 0;         // its length
  std::string sha256;        // the SHA-256 of those bytes, 64 hex digits
  Sha256Midstate midstate;   // bytes - kMidstateBytes < midstate.bytes <= bytes
  bool operator==(const FileCheckpoint&) const = default;
};

class FileDigest {
 public:
  FileDigest();  // of no bytes

  // The digest of `path`'s first recorded.bytes bytes, continued from the recorded midstate
  // (reading the bytes after it). An Error naming `path` and `record` (the progress file that
  // recorded it) when the midstate is not where it belongs, the file is shorter, or its bytes
  // do not give recorded.sha256. Reads only; changes nothing.
  static FileDigest resume(const std::filesystem::path& path, const FileCheckpoint& recorded,
                           const std::filesystem::path& record);

  void add(std::string_view bytes);
  FileCheckpoint checkpoint() const;
  int64_t bytes() const { return bytes_; }

 private:
  sha256_ctx context_;
  int64_t bytes_ = 0;
  Sha256Midstate midstate_;
};

// The checkpoint of an empty file.
FileCheckpoint empty_file_checkpoint();

// Whether file.midstate is well formed (64 hex digits) and at the last whole MiB of its bytes.
bool midstate_in_place(const FileCheckpoint& file);

}  // namespace sift::batch
