#pragma once
// Typed fields of a catalog or profile row (a JSON object); each throws sift::Error naming
// the field and what is wrong, for the caller to prefix with "file:line: ".
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sift::label {

inline constexpr size_t kMaxIdBytes = 256;

// An id: a non-empty string of at most kMaxIdBytes without control characters, or an
// integer (written in decimal).
std::string id_field(const nlohmann::json& object, const char* name);
// A string without NUL characters (PostgreSQL's text cannot hold one, so neither store takes
// it); `non_empty_` also rejects "".
std::string string_field(const nlohmann::json& object, const char* name);
std::string non_empty_string_field(const nlohmann::json& object, const char* name);
// Absent: empty. Present: a list of strings.
std::vector<std::string> optional_string_list(const nlohmann::json& object, const char* name);

}  // namespace sift::label
