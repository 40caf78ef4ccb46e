#include "workflows/labeled_rows.h"

#include <fstream>
#include <string>

#include "core/error.h"

namespace sift {
namespace {

using nlohmann::json;

// Reads "labels" or "truth": one 0/1 (or boolean) per item.
std::vector<bool> read_label_list(const json& value, const char* field, size_t n_items, const std::string& where) {
  if (!value.is_array()) fail("{}: field \"{}\" must be a list of 0/1, got {}", where, field, value.type_name());
  if (value.size() != n_items)
    fail("{}: field \"{}\" has {} labels but the row has {} items", where, field, value.size(), n_items);
  std::vector<bool> labels;
  labels.reserve(n_items);
  for (size_t i = 0; i < value.size(); ++i) {
    const json& label = value[i];
    if (label.is_boolean()) labels.push_back(label.get<bool>());
    else if (label.is_number_integer() && (label.get<int64_t>() == 0 || label.get<int64_t>() == 1))
      labels.push_back(label.get<int64_t>() == 1);
    else fail("{}: {}[{}] must be 0 or 1, got {}", where, field, i, label.dump());
  }
  return labels;
}

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r\n") == std::string_view::npos; }

}  // namespace

LabeledRow parse_labeled_row(std::string_view line, const std::string& where) {
  LabeledRow labeled;
  try {
    labeled.row = parse_scoring_row(line);
  } catch (const Error& e) {
    fail("{}: {}", where, e.what());
  }
  const json object = json::parse(line);  // valid: parse_scoring_row accepted it
  const size_t n_items = labeled.row.items.size();
  auto labels = object.find("labels");
  if (labels == object.end())
    fail("{}: missing field \"labels\" (one reference label 0/1 per item are needed to calibrate or evaluate)",
         where);
  labeled.labels = read_label_list(*labels, "labels", n_items, where);
  if (auto truth = object.find("truth"); truth != object.end() && !truth->is_null())
    labeled.truth = read_label_list(*truth, "truth", n_items, where);
  return labeled;
}

std::vector<LabeledRow> read_labeled_rows(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) fail("{}: cannot open the input", path.string());
  std::vector<LabeledRow> rows;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (is_blank(line)) continue;
    rows.push_back(parse_labeled_row(line, fmt::format("{}:{}", path.string(), number)));
    rows.back().line = number;
  }
  if (in.bad()) fail("{}: read error", path.string());
  if (rows.empty()) fail("{}: no rows (empty input)", path.string());
  return rows;
}

int64_t count_items(const std::vector<LabeledRow>& rows) {
  int64_t n = 0;
  for (const LabeledRow& row : rows) n += static_cast<int64_t>(row.row.items.size());
  return n;
}

}  // namespace sift
