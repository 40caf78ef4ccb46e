#pragma once
// `sift review --reference rows.jsonl`: reference labels for stored judgments, to count
// disagreements and draw the PR curve. Rows are labeled rows (workflows/labeled_rows.h):
//   {"id": member, "query": ..., "items": ["text" | {"id": qualification, "text": ...}], "labels": [0/1...]}
// An item given with an id matches the stored judgment of that qualification; one without,
// the judgment whose candidate text is the item's text. Rows that cannot be read are reported
// by line and left out.
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/label_store.h"
#include "workflows/labeled_rows.h"

namespace sift::review {

class ReferenceLabels {
 public:
  ReferenceLabels() = default;
  // Error when no row at all can be read; `errors` gets the lines left out.
  static ReferenceLabels read(const std::string& path, std::vector<RowError>& errors);

  bool empty() const { return by_member_.empty(); }
  // The reference's label for this stored judgment of `member`, when it has one.
  std::optional<bool> label_of(const std::string& member, const store::Judgment& judgment) const;
  // Every member the reference labels.
  std::vector<std::string> members() const;

 private:
  // member -> "id:<qualification>" or "text:<candidate text>" -> label
  std::unordered_map<std::string, std::unordered_map<std::string, bool>> by_member_;
};

}  // namespace sift::review
