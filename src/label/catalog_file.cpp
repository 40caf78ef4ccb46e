#include "label/catalog_file.h"

#include "core/error.h"
#include "io/row_shape.h"
#include "label/jsonl_file.h"
#include "label/row_fields.h"

namespace sift::label {

namespace {

std::vector<std::vector<std::string>> surface_forms_of(const std::vector<CatalogEntry>& entries) {
  std::vector<std::vector<std::string>> forms;
  forms.reserve(entries.size());
  for (const CatalogEntry& entry : entries) forms.push_back(entry.surface_forms);
  return forms;
}

CatalogEntry parse_entry(const nlohmann::json& object) {
  CatalogEntry entry;
  if (object.is_object() && !object.contains("name"))
    if (const std::string hint = row_mixup_hint(object, RowShape::CatalogEntry); !hint.empty())
      fail("missing field \"name\": {}", hint);
  entry.id = id_field(object, "id");
  entry.name = non_empty_string_field(object, "name");
  entry.surface_forms.push_back(entry.name);
  for (const char* list : {"aliases", "titles"})
    for (std::string& form : optional_string_list(object, list)) entry.surface_forms.push_back(std::move(form));
  return entry;
}

}  // namespace

LabelCatalog::LabelCatalog(std::vector<CatalogEntry> entries, int64_t malformed_rows)
    : entries_(std::move(entries)),
      index_(retrieval::index_surface_forms(surface_forms_of(entries_))),
      malformed_rows_(malformed_rows) {
  for (int i = 0; i < size(); ++i) by_id_.emplace(entries_[size_t(i)].id, i);
}

LabelCatalog LabelCatalog::read(const std::filesystem::path& path, const ReportFn& report) {
  JsonlFile file(path);
  std::vector<CatalogEntry> entries;
  std::unordered_map<std::string, int64_t> line_of_id;
  int64_t malformed = 0;
  std::string text;
  while (file.next(text)) {
    try {
      CatalogEntry entry = parse_entry(parse_object_line(text, file.too_long()));
      auto [it, inserted] = line_of_id.emplace(entry.id, file.line_number());
      if (!inserted) fail("id \"{}\" repeats line {}", entry.id, it->second);
      entries.push_back(std::move(entry));
    } catch (const Error& e) {
      ++malformed;
      report(file.where() + ": " + e.what());
    }
  }
  if (entries.empty()) fail("{}: no catalog entry to label with", path.string());
  return LabelCatalog(std::move(entries), malformed);
}

int LabelCatalog::find(const std::string& id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? -1 : it->second;
}

std::vector<int> LabelCatalog::retrieve(std::string_view text, int k) const {
  std::vector<int> ranked;
  for (const retrieval::ScoredDocument& d : retrieval::retrieve(index_, text, k))
    if (d.score > 0) ranked.push_back(d.document);
  return ranked;
}

}  // namespace sift::label
