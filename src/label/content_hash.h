#pragma once
// SHA-256 (OpenSSL) for what decides re-labeling: a profile's input, the labeler's files,
// and which shard a member falls in.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace sift::label {

// Lower-case hex digest of the bytes.
std::string sha256_hex(std::string_view bytes);

// "sha256:<hex>" over the labeler directory's files that make its scores (sift.json,
// config.json, tokenizer.json, *.safetensors, model.safetensors.index.json), in name order,
// each as its name, its size and its bytes. Read in blocks (a multi-GB checkpoint is fine).
std::string artifact_fingerprint(const std::filesystem::path& model_dir);

// The first 8 bytes of SHA-256(text) as a big-endian integer: an even, stable spread of ids.
uint64_t stable_hash64(std::string_view text);

}  // namespace sift::label
