#include "train/teacher_rows.h"

#include <cmath>
#include <exception>
#include <regex>

#include "io/input_file.h"
#include "io/json_parse.h"

namespace sift::train {
namespace {

using nlohmann::json;

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

// A line that is not JSON only because a number is a bare NaN or Infinity (what Python's json
// module writes for a float that is not finite): the same line with those as strings, so the
// score check names the item. Nothing is trained on the rewritten line; it is only read to
// refuse it. std::nullopt when the line has no such literal.
std::optional<json> with_bare_non_finite_as_strings(std::string_view line) {
  static const std::regex bare(R"(([\[,:]\s*)(-?(?:NaN|Infinity))(?=\s*[\],}]))");
  const std::string text(line);
  if (!std::regex_search(text, bare)) return std::nullopt;
  try {
    json object = parse_json(std::regex_replace(text, bare, "$1\"$2\""), "");
    if (object.is_object()) return object;
  } catch (const Error&) {
  }
  return std::nullopt;
}

std::optional<double> raw_threshold(const json& object) {
  auto artifact = object.find("artifact");
  if (artifact == object.end() || !artifact->is_object()) return std::nullopt;
  auto on = artifact->find("threshold_on");
  if (on != artifact->end() && !(on->is_string() && on->get<std::string>() == "score")) return std::nullopt;
  auto threshold = artifact->find("threshold");
  if (threshold == artifact->end() || !threshold->is_number()) return std::nullopt;
  const double t = threshold->get<double>();
  return std::isfinite(t) ? std::optional<double>(t) : std::nullopt;
}

// The scores of a line: TeacherScoreError for a value that is not a probability (checked
// first: a file that holds one is not teacher output), then Error for a null (the teacher
// did not score the item: the line is left out).
std::vector<double> read_scores(const json& object, size_t n_items) {
  auto scores = object.find("scores");
  if (scores == object.end())
    fail("missing field \"scores\" (the teacher's P(YES) per item: rows of `sift score --echo` or `sift batch --echo`)");
  if (!scores->is_array()) fail("field \"scores\" must be a list of P(YES), got {}", scores->type_name());
  if (scores->size() != n_items) fail("field \"scores\" has {} scores but the row has {} items", scores->size(), n_items);
  std::optional<size_t> null_item;
  std::vector<double> out;
  out.reserve(n_items);
  for (size_t i = 0; i < n_items; ++i) {
    const json& s = (*scores)[i];
    if (s.is_null()) {
      if (!null_item) null_item = i;
      out.push_back(0);
      continue;
    }
    if (!s.is_number())
      throw TeacherScoreError(fmt::format("scores[{}] (item {}) is {}, not a probability in [0, 1]", i, i, s.dump()));
    const double t = s.get<double>();
    if (!(t >= 0 && t <= 1))  // NaN fails both
      throw TeacherScoreError(fmt::format("scores[{}] (item {}) is {}, not a probability in [0, 1]", i, i, s.dump()));
    out.push_back(t);
  }
  if (null_item) fail("scores[{}] is null: the teacher did not score item {}", *null_item, *null_item);
  return out;
}

}  // namespace

TeacherRow parse_teacher_row(std::string_view line) {
  json object;
  try {
    object = parse_row_object(line);
  } catch (const Error&) {
    // A bare NaN among the scores refuses the run (TeacherScoreError); anything else wrong with
    // the line is its parse error.
    if (const std::optional<json> rewritten = with_bare_non_finite_as_strings(line); rewritten && rewritten->contains("items"))
      if (auto items = rewritten->find("items"); items->is_array()) try {
          read_scores(*rewritten, items->size());
        } catch (const TeacherScoreError&) {
          throw;
        } catch (const Error&) {
        }
    throw;
  }
  if (auto error = object.find("error"); error != object.end())
    fail("the teacher could not score this row: {}", error->is_string() ? error->get<std::string>() : error->dump());
  TeacherRow row;
  row.labeled.row = scoring_row_from_json(object);
  const size_t n = row.labeled.row.items.size();
  const std::vector<double> scores = read_scores(object, n);  // labels compare the scores as written
  row.scores.assign(scores.begin(), scores.end());
  row.teacher_threshold = raw_threshold(object);
  const double threshold = row.teacher_threshold.value_or(0.5);
  row.labeled.labels.resize(n);
  const auto labels = object.find("labels");
  const bool has_labels = labels != object.end() && labels->is_array() && labels->size() == n;
  for (size_t i = 0; i < n; ++i) {
    const json* label = has_labels ? &(*labels)[i] : nullptr;
    if (label && label->is_boolean()) row.labeled.labels[i] = label->get<bool>();
    else if (label && label->is_number_integer() && (label->get<int64_t>() == 0 || label->get<int64_t>() == 1))
      row.labeled.labels[i] = label->get<int64_t>() == 1;
    else row.labeled.labels[i] = scores[i] >= threshold;  // ties go to YES, as scoring's labels
  }
  return row;
}

TeacherRows read_teacher_rows(const std::string& path, int64_t max_line_bytes) {
  InputFile input(path);
  LineReader in(input.stream(), max_line_bytes);
  TeacherRows read;
  for (InputLine line; in.next(line);) {
    try {
      if (line.too_long) fail("{}", too_long_line_message(line, in.max_line_bytes()));
      if (is_blank(line.text)) continue;
      read.rows.push_back(parse_teacher_row(line.text));
      read.rows.back().labeled.line = line.number;
    } catch (const TeacherScoreError& e) {
      fail("{}:{}: {}: the teacher's scores must be probabilities; no training on this file", input.name(), line.number,
           e.what());
    } catch (const std::exception& e) {  // whatever else went wrong, it is this line's error
      read.errors.push_back({line.number, e.what()});
    }
  }
  if (read.rows.empty() && read.errors.empty()) fail("{}: no rows (empty input)", input.name());
  if (read.rows.empty())
    fail("{}: none of its {} rows could be read; line {}: {}", input.name(), read.errors.size(), read.errors[0].line,
         read.errors[0].message);
  return read;
}

std::optional<double> common_teacher_threshold(const std::vector<TeacherRow>& rows) {
  std::optional<double> common;
  for (const TeacherRow& row : rows) {
    if (!row.teacher_threshold) return std::nullopt;
    if (common && *common != *row.teacher_threshold) return std::nullopt;
    common = row.teacher_threshold;
  }
  return common;
}

}  // namespace sift::train
