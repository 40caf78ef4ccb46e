#include "train/examples.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "scoring/score_io.h"

namespace sift::train {

LabeledRow parse_labeled_row(std::string_view line) {
  ScoringRow scoring = parse_scoring_row(line);  // id, query, items as `sift score` reads them
  const nlohmann::json object = nlohmann::json::parse(line);
  const auto labels = object.find("labels");
  if (labels == object.end()) fail("missing required field \"labels\" (the reference labels, 0 or 1 per item)");
  if (!labels->is_array()) fail("field \"labels\" must be an array of 0/1, got {}", labels->dump());
  if (labels->size() != scoring.items.size())
    fail("field \"labels\" has {} entries but \"items\" has {}", labels->size(), scoring.items.size());
  LabeledRow row{std::move(scoring.query), std::move(scoring.items), {}};
  for (size_t i = 0; i < labels->size(); ++i) {
    const nlohmann::json& label = (*labels)[i];
    if (!label.is_number_integer() || (label.get<int64_t>() != 0 && label.get<int64_t>() != 1))
      fail("labels[{}] is {}, expected 0 or 1", i, label.dump());
    row.labels.push_back(static_cast<int8_t>(label.get<int64_t>()));
  }
  return row;
}

std::vector<LabeledRow> read_labeled_rows(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) fail("{}: cannot open the training data", path.string());
  std::vector<LabeledRow> rows;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      rows.push_back(parse_labeled_row(line));
    } catch (const Error& e) {
      fail("{}:{}: {}", path.string(), number, e.what());
    } catch (const nlohmann::json::exception& e) {
      fail("{}:{}: invalid JSON: {}", path.string(), number, e.what());
    }
  }
  if (rows.empty()) fail("{}: no rows", path.string());
  return rows;
}

std::vector<EncodedRow> encode_rows(const std::vector<LabeledRow>& rows, const PromptEncoder& encoder,
                                    const AnswerTokenIds& answer) {
  std::vector<EncodedRow> encoded;
  encoded.reserve(rows.size());
  for (const LabeledRow& row : rows) {
    EncodedRow e;
    e.query = encoder.query_tokens(row.query);
    e.items = encoder.item_tokens_batch(row.items);
    for (int8_t label : row.labels) e.targets.push_back(label ? answer.yes : answer.no);
    e.labels = row.labels;
    encoded.push_back(std::move(e));
  }
  return encoded;
}

}  // namespace sift::train
