#include "io/row_shape.h"

#include <fmt/format.h>

namespace sift {
namespace {

const char* looks_like(RowShape shape) {
  switch (shape) {
    case RowShape::RowToScore: return "a row to score {\"id\", \"query\", \"items\"}";
    case RowShape::ScoredLine:
      return "a line of `sift score` output, which holds scores but not the rows' text (`sift score --echo` keeps "
             "\"query\" and \"items\" in it)";
    case RowShape::Profile: return "a profile {\"id\", \"text\"}, what `sift label --profiles` reads";
    case RowShape::CatalogEntry: return "a catalog entry {\"id\", \"name\"}, what `sift label --catalog` reads";
    case RowShape::Unknown: break;
  }
  return "";
}

const char* what_is_read(RowShape expected) {
  switch (expected) {
    case RowShape::RowToScore: return "rows to score are {\"id\", \"query\", \"items\": [...]}";
    case RowShape::Profile:
      return "`sift label --profiles` reads profiles {\"id\", \"text\", \"candidates\"?} (a row's \"query\" is a "
             "profile's \"text\"; its candidates come from the catalog)";
    case RowShape::CatalogEntry: return "`sift label --catalog` reads entries {\"id\", \"name\", \"aliases\"?}";
    case RowShape::ScoredLine:
    case RowShape::Unknown: break;
  }
  return "";
}

}  // namespace

RowShape row_shape(const nlohmann::json& object) {
  if (!object.is_object()) return RowShape::Unknown;
  const auto has = [&object](const char* field) { return object.contains(field); };
  if (has("query") && has("items")) return RowShape::RowToScore;
  if (has("query")) return RowShape::Unknown;
  if (has("scores") && has("labels")) return RowShape::ScoredLine;
  if (has("text") && !has("name")) return RowShape::Profile;
  if (has("name") && !has("text")) return RowShape::CatalogEntry;
  return RowShape::Unknown;
}

std::string row_mixup_hint(const nlohmann::json& object, RowShape expected) {
  const RowShape shape = row_shape(object);
  if (shape == RowShape::Unknown || shape == expected) return "";
  return fmt::format("this looks like {}; {}", looks_like(shape), what_is_read(expected));
}

std::string row_to_score_fields_hint(const nlohmann::json& object) {
  if (std::string hint = row_mixup_hint(object, RowShape::RowToScore); !hint.empty()) return hint;
  std::string fields;
  for (auto field = object.begin(); field != object.end(); ++field)
    fields += fmt::format("{}{}", fields.empty() ? "" : ", ", field.key());
  return fmt::format("got {}; expected id, query, items", fields.empty() ? "no fields" : "fields " + fields);
}

}  // namespace sift
