#include "label/row_fields.h"

#include <algorithm>

#include "core/error.h"

namespace sift::label {

namespace {

const nlohmann::json& required(const nlohmann::json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end()) fail("missing field \"{}\"", name);
  return *it;
}

}  // namespace

std::string id_field(const nlohmann::json& object, const char* name) {
  const nlohmann::json& value = required(object, name);
  if (value.is_number_integer()) return value.dump();
  if (!value.is_string()) fail("field \"{}\" must be a string or an integer, got {}", name, value.type_name());
  std::string id = value.get<std::string>();
  if (id.empty()) fail("field \"{}\" is empty", name);
  if (id.size() > kMaxIdBytes) fail("field \"{}\" is {} bytes long, at most {} allowed", name, id.size(), kMaxIdBytes);
  if (std::any_of(id.begin(), id.end(), [](char c) { return (unsigned char)c < 0x20 || c == 0x7f; }))
    fail("field \"{}\" holds a control character", name);
  return id;
}

std::string string_field(const nlohmann::json& object, const char* name) {
  const nlohmann::json& value = required(object, name);
  if (!value.is_string()) fail("field \"{}\" must be a string, got {}", name, value.type_name());
  std::string text = value.get<std::string>();
  if (text.find('\0') != std::string::npos)
    fail("field \"{}\" holds a NUL character (\\u0000), which a label store cannot keep", name);
  return text;
}

std::string non_empty_string_field(const nlohmann::json& object, const char* name) {
  std::string text = string_field(object, name);
  if (text.empty()) fail("field \"{}\" is empty", name);
  return text;
}

std::vector<std::string> optional_string_list(const nlohmann::json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end()) return {};
  if (!it->is_array()) fail("field \"{}\" must be a list of strings, got {}", name, it->type_name());
  std::vector<std::string> strings;
  strings.reserve(it->size());
  for (size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& item = (*it)[i];
    if (!item.is_string()) fail("{}[{}] must be a string, got {}", name, i, item.type_name());
    strings.push_back(item.get<std::string>());
  }
  return strings;
}

}  // namespace sift::label
