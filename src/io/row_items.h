#pragma once
// The items rule (sift/items_field.h) over JSON values: the format of sift's JSON rows, and the
// items of a JSON row with their ids.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "sift/items_field.h"

namespace sift {

// JSON values (nlohmann::json): a list is an array, text a string, an object an object.
struct JsonFormat {
  using Value = nlohmann::json;
  static bool is_list(const Value& v) { return v.is_array(); }
  static bool is_text(const Value& v) { return v.is_string(); }
  static bool is_object(const Value& v) { return v.is_object(); }
  static std::string type_name(const Value& v) { return v.type_name(); }
  static const Value& items_of(const Value& list) { return list; }
  static std::string text(const Value& v, std::string_view /*where*/) { return v.get<std::string>(); }
  static bool has_text_field(const Value& object) {
    auto text = object.find("text");
    return text != object.end() && text->is_string();
  }
  static std::string text_field(const Value& object, std::string_view /*where*/) {
    return object["text"].get<std::string>();
  }
};

// The items of a JSON row: their texts, and when `ids` is given, each item's "id" (null for
// an item without one; *has_ids set when any item has one).
struct JsonRowItems {
  std::vector<std::string> texts;
  std::vector<nlohmann::json> ids;  // one per text when read with ids, else empty
  bool has_ids = false;
};
JsonRowItems read_json_row_items(const nlohmann::json& list, std::string_view field, bool with_ids);

}  // namespace sift
