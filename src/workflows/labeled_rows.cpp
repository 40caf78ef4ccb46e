#include "workflows/labeled_rows.h"

#include <exception>
#include <string>

#include "core/error.h"
#include "io/input_file.h"

namespace sift {
namespace {

using nlohmann::json;

// Reads "labels" or "truth": one 0/1 (or boolean) per item.
std::vector<bool> read_label_list(const json& value, const char* field, size_t n_items) {
  if (!value.is_array()) fail("field \"{}\" must be a list of 0/1, got {}", field, value.type_name());
  if (value.size() != n_items)
    fail("field \"{}\" has {} labels but the row has {} items", field, value.size(), n_items);
  std::vector<bool> labels;
  labels.reserve(n_items);
  for (size_t i = 0; i < value.size(); ++i) {
    const json& label = value[i];
    if (label.is_boolean()) labels.push_back(label.get<bool>());
    else if (label.is_number_integer() && (label.get<int64_t>() == 0 || label.get<int64_t>() == 1))
      labels.push_back(label.get<int64_t>() == 1);
    else fail("{}[{}] must be 0 or 1 (or false/true), got {}", field, i, label.dump());
  }
  return labels;
}

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t") == std::string_view::npos; }

}  // namespace

LabeledRow parse_labeled_row(std::string_view line) {
  const json object = parse_row_object(line);
  LabeledRow labeled;
  labeled.row = scoring_row_from_json(object);
  const size_t n_items = labeled.row.items.size();
  auto labels = object.find("labels");
  if (labels == object.end())
    fail("missing field \"labels\" (one reference label 0/1 per item is needed to calibrate, evaluate or train)");
  labeled.labels = read_label_list(*labels, "labels", n_items);
  if (auto truth = object.find("truth"); truth != object.end() && !truth->is_null())
    labeled.truth = read_label_list(*truth, "truth", n_items);
  return labeled;
}

LabeledRows read_labeled_rows(LineReader& in, const std::string& name) {
  LabeledRows read;
  for (InputLine line; in.next(line);) {
    try {
      if (line.too_long) fail("{}", too_long_line_message(line, in.max_line_bytes()));
      if (is_blank(line.text)) continue;
      read.rows.push_back(parse_labeled_row(line.text));
      read.rows.back().line = line.number;
    } catch (const std::exception& e) {  // whatever went wrong, it is this line's error
      read.errors.push_back({line.number, e.what()});
    }
  }
  if (read.rows.empty() && read.errors.empty()) fail("{}: no rows (empty input)", name);
  if (read.rows.empty())
    fail("{}: none of its {} rows could be read; line {}: {}", name, read.errors.size(), read.errors[0].line,
         read.errors[0].message);
  return read;
}

LabeledRows read_labeled_rows(const std::string& path, int64_t max_line_bytes) {
  InputFile input(path);
  LineReader reader(input.stream(), max_line_bytes);
  return read_labeled_rows(reader, input.name());
}

}  // namespace sift
