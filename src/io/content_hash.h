#pragma once
// SHA-256 (OpenSSL) for what decides re-labeling and resuming: a profile's input, the labeler's
// files, a `sift batch` job's input, and which shard a member falls in (io/shard.h).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace sift {

// Lower-case hex digest of the bytes.
std::string sha256_hex(std::string_view bytes);

// Lower-case hex SHA-256 of a file's bytes, read in blocks.
std::string sha256_file_hex(const std::filesystem::path& file);

// "sha256:<hex>" over the labeler directory's files that make its scores (io/labeler_files.h),
// in name order, each as its name, its size and its bytes. Read in blocks (a multi-GB
// checkpoint is fine), once per process while the files stay as they were (same inode, size
// and modification time): a second call is a lookup.
std::string artifact_fingerprint(const std::filesystem::path& model_dir);

// The first 8 bytes of SHA-256(text) as a big-endian integer: an even, stable spread of ids.
uint64_t stable_hash64(std::string_view text);

}  // namespace sift
