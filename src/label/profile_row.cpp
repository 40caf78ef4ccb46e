#include "label/profile_row.h"

#include <unordered_map>

#include "core/error.h"
#include "io/content_hash.h"
#include "io/row_shape.h"
#include "label/row_fields.h"

namespace sift::label {

ProfileRow parse_profile_row(const nlohmann::json& object) {
  ProfileRow row;
  if (object.is_object() && !object.contains("text"))
    if (const std::string hint = row_mixup_hint(object, RowShape::Profile); !hint.empty())
      fail("missing field \"text\": {}", hint);
  row.member = id_field(object, "id");
  row.text = string_field(object, "text");
  if (object.contains("candidates")) {
    row.candidates = optional_string_list(object, "candidates");
    std::unordered_map<std::string, size_t> first_at;
    for (size_t i = 0; i < row.candidates->size(); ++i) {
      auto [it, inserted] = first_at.emplace((*row.candidates)[i], i);
      if (!inserted) fail("candidates[{}] \"{}\" repeats candidates[{}]", i, (*row.candidates)[i], it->second);
    }
  }
  return row;
}

std::string profile_input_hash(const ProfileRow& row) {
  const nlohmann::json key = nlohmann::json::array(
      {row.text, row.candidates ? nlohmann::json(*row.candidates) : nlohmann::json(nullptr)});
  return sha256_hex(key.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict));
}

}  // namespace sift::label
