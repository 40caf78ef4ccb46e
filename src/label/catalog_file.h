#pragma once
// The catalog of `sift label`: CATALOG.jsonl, one qualification per line,
//
//   {"id": "q0042", "name": "Apache Spark", "aliases": ["PySpark", ...], "titles": [...]}
//
// "aliases" and "titles" are optional lists of other names; other fields are ignored (so
// `sift synth`'s catalog.jsonl is a catalog as it is). The name is the candidate text the
// labeler judges; name, aliases and titles together are the entry's BM25 document, as in
// `sift synth`. A malformed line, or one repeating an id, is reported through `report`
// ("file:line: what") and left out; a catalog left with no entry is an Error.
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "retrieval/bm25.h"

namespace sift::label {

using ReportFn = std::function<void(const std::string& message)>;

struct CatalogEntry {
  std::string id;
  std::string name;
  std::vector<std::string> surface_forms;  // name, aliases, titles
};

class LabelCatalog {
 public:
  static LabelCatalog read(const std::filesystem::path& path, const ReportFn& report);

  int size() const { return int(entries_.size()); }
  const CatalogEntry& operator[](int index) const { return entries_[size_t(index)]; }
  // Index of the entry with this id, or -1.
  int find(const std::string& id) const;
  // The entries sharing at least one retrieval term with `text`, best first, at most k.
  std::vector<int> retrieve(std::string_view text, int k) const;
  int64_t malformed_rows() const { return malformed_rows_; }

 private:
  LabelCatalog(std::vector<CatalogEntry> entries, int64_t malformed_rows);

  std::vector<CatalogEntry> entries_;
  std::unordered_map<std::string, int> by_id_;
  retrieval::Bm25Index index_;
  int64_t malformed_rows_ = 0;
};

}  // namespace sift::label
