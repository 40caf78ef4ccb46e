#include "tokenizer/token_ids.h"

#include <nlohmann/json.hpp>

#include <limits>

#include "core/error.h"

namespace sift {

namespace {

constexpr int64_t kMaxId = std::numeric_limits<int32_t>::max();

}  // namespace

bool is_token_id(const nlohmann::json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>() <= static_cast<uint64_t>(kMaxId);
  return value.is_number_integer() && value.get<int64_t>() >= 0 && value.get<int64_t>() <= kMaxId;
}

int32_t token_id_from_json(const nlohmann::json& value, const std::string& where) {
  if (!value.is_number_integer()) fail("{} must be an integer token id, got {}", where, value.dump());
  if (!is_token_id(value)) fail("{} is {}, outside the token id range [0, {}]", where, value.dump(), kMaxId);
  return static_cast<int32_t>(value.get<int64_t>());
}

std::vector<int32_t> token_ids_from_json(const nlohmann::json& list, const std::string& where) {
  if (!list.is_array()) fail("{} must be a list of token ids, got {}", where, list.type_name());
  std::vector<int32_t> ids;
  ids.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) ids.push_back(token_id_from_json(list[i], fmt::format("{}[{}]", where, i)));
  return ids;
}

}  // namespace sift
