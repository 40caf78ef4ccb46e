#include "review/reference_labels.h"

#include <algorithm>

namespace sift::review {

namespace {

std::string text_of(const nlohmann::json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

}  // namespace

ReferenceLabels ReferenceLabels::read(const std::string& path, std::vector<RowError>& errors) {
  LabeledRows rows = read_labeled_rows(path);
  errors = std::move(rows.errors);
  ReferenceLabels reference;
  for (const LabeledRow& row : rows.rows) {
    if (row.row.id.is_null()) {
      errors.push_back({row.line, "the row has no \"id\" (the member it labels)"});
      continue;
    }
    auto& labels = reference.by_member_[text_of(row.row.id)];
    for (size_t i = 0; i < row.row.items.size(); ++i) {
      const nlohmann::json& id = row.row.item_ids.empty() ? nlohmann::json() : row.row.item_ids[i];
      labels["text:" + row.row.items[i]] = row.labels[i];
      if (!id.is_null()) labels["id:" + text_of(id)] = row.labels[i];
    }
  }
  std::sort(errors.begin(), errors.end(), [](const RowError& a, const RowError& b) { return a.line < b.line; });
  return reference;
}

std::optional<bool> ReferenceLabels::label_of(const std::string& member, const store::Judgment& judgment) const {
  const auto labels = by_member_.find(member);
  if (labels == by_member_.end()) return std::nullopt;
  for (const std::string& key : {"id:" + judgment.qualification, "text:" + judgment.name}) {
    const auto found = labels->second.find(key);
    if (found != labels->second.end()) return found->second;
  }
  return std::nullopt;
}

std::vector<std::string> ReferenceLabels::members() const {
  std::vector<std::string> members;
  for (const auto& [member, labels] : by_member_) members.push_back(member);
  std::sort(members.begin(), members.end());
  return members;
}

}  // namespace sift::review
