#pragma once
// The "items" of a row, one rule for every reader of rows: `sift score` / `sift batch` lines,
// `sift serve`'s bodies ("items", "documents"), the Python package's rows and `sift tokenizer
// train`'s JSON-lines corpus. The field is a list; each item is a string, or an object with a
// string "text" and an optional "id" of any type. A bad list or item is a RowItemsError,
// worded the same by every reader, whose param() is the path of the bad value (what
// `sift serve` names in its 400 answer):
//   field "items" must be a list, got <type>                        param "items"
//   items[3] must be a string or an object with "text", got <type>  param "items[3]"
//   items[3] must have a string field "text"                         param "items[3].text"
// The rule is written once, over a Format that reads one kind of value (sift's JSON rows have
// one, the Python package another for Python objects). A Format has:
//   Value;  is_list(v), is_text(v), is_object(v): bool;  type_name(v): std::string;
//   items_of(list): a range over the list's items;  text(v, where): the text of a text value;
//   has_text_field(object): "text" is there and is text;  text_field(object, where): its text.
#include <cstddef>
#include <string>
#include <string_view>

#include "sift/error.h"

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
  const std::string name(field);
  if (!Format::is_list(list))
    throw RowItemsError(name, "field \"" + name + "\" must be a list, got " + Format::type_name(list));
  size_t i = 0;
  for (auto&& item : Format::items_of(list)) {
    const std::string where = name + "[" + std::to_string(i++) + "]";
    if (Format::is_text(item)) {
      on_item(Format::text(item, where), nullptr);
    } else if (Format::is_object(item)) {
      if (!Format::has_text_field(item))
        throw RowItemsError(where + ".text", where + " must have a string field \"text\"");
      const typename Format::Value& object = item;
      on_item(Format::text_field(item, where + ".text"), &object);
    } else {
      throw RowItemsError(where, where + " must be a string or an object with \"text\", got " + Format::type_name(item));
    }
  }
}

}  // namespace sift
