#pragma once
// The "items" of a row, one rule for every reader of rows: `sift score` / `sift batch` lines
// (scoring/score_io.h), `sift serve`'s bodies ("items", "documents"), the Python package's
// rows (python/src/rows.cpp) and `sift tokenizer train`'s JSON-lines corpus. The field is a
// list; each item is a string, or an object with a string "text" and an optional "id" of any
// type. A bad list or item is a RowItemsError, worded the same by every reader, whose param()
// is the path of the bad value (what `sift serve` names in its 400 answer):
//   field "items" must be a list, got <type>                        param "items"
//   items[3] must be a string or an object with "text", got <type>  param "items[3]"
//   items[3] must have a string field "text"                         param "items[3].text"
// The rule is written once, over a Format that reads one kind of value (JsonFormat below; the
// Python package has its own for Python objects). A Format has:
//   Value;  is_list(v), is_text(v), is_object(v): bool;  type_name(v): std::string;
//   items_of(list): a range over the list's items;  text(v, where): the text of a text value;
//   has_text_field(object): "text" is there and is text;  text_field(object, where): its text.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace sift {

class RowItemsError : public Error {
 public:
  RowItemsError(std::string param, const std::string& message) : Error(message), param_(std::move(param)) {}
  const std::string& param() const { return param_; }

 private:
  std::string param_;
};

// Calls on_item(text, object) for every item of `list`, the value of the row's field `field`,
// in order; `object` points to the item when it is an object (to read its other fields), else
// it is null. Throws RowItemsError at the first bad value.
template <typename Format, typename OnItem>
void for_each_row_item(const typename Format::Value& list, std::string_view field, OnItem&& on_item) {
  if (!Format::is_list(list))
    throw RowItemsError(std::string(field),
                        fmt::format("field \"{}\" must be a list, got {}", field, Format::type_name(list)));
  size_t i = 0;
  for (auto&& item : Format::items_of(list)) {
    const std::string where = fmt::format("{}[{}]", field, i++);
    if (Format::is_text(item)) {
      on_item(Format::text(item, where), nullptr);
    } else if (Format::is_object(item)) {
      if (!Format::has_text_field(item))
        throw RowItemsError(where + ".text", fmt::format("{} must have a string field \"text\"", where));
      const typename Format::Value& object = item;
      on_item(Format::text_field(item, where + ".text"), &object);
    } else {
      throw RowItemsError(where, fmt::format("{} must be a string or an object with \"text\", got {}", where,
                                             Format::type_name(item)));
    }
  }
}

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
