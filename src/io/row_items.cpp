#include "io/row_items.h"

namespace sift {

JsonRowItems read_json_row_items(const nlohmann::json& list, std::string_view field, bool with_ids) {
  JsonRowItems items;
  if (list.is_array()) {
    items.texts.reserve(list.size());
    if (with_ids) items.ids.reserve(list.size());
  }
  for_each_row_item<JsonFormat>(list, field, [&](std::string text, const nlohmann::json* object) {
    items.texts.push_back(std::move(text));
    if (!with_ids) return;
    nlohmann::json id = nullptr;
    if (object) {
      if (auto found = object->find("id"); found != object->end()) {
        id = *found;
        items.has_ids = true;
      }
    }
    items.ids.push_back(std::move(id));
  });
  return items;
}

}  // namespace sift
