#pragma once
// A profile row of `sift label`: PROFILES.jsonl, one member per line,
//
//   {"id": "m000123", "text": "<profile>", "candidates": ["q0042", ...]}
//
// "candidates" is optional: catalog ids in rank order, for users with their own retriever
// (without it BM25 over the catalog ranks them). Other fields are ignored. What the member's
// labels depend on (the text and the given candidates) is hashed into input_hash, so an
// unchanged row is not judged again.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sift::label {

struct ProfileRow {
  std::string member;
  std::string text;
  std::optional<std::vector<std::string>> candidates;  // catalog ids, best first
};

// Throws sift::Error naming the field (a repeated candidate id too).
ProfileRow parse_profile_row(const nlohmann::json& object);

// SHA-256 (hex) of [text, candidates or null] as compact JSON.
std::string profile_input_hash(const ProfileRow& row);

}  // namespace sift::label
