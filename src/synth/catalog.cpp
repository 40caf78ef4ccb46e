#include "synth/catalog.h"

#include <algorithm>
#include <unordered_set>

#include "core/error.h"
#include "synth/catalog_table.h"
#include "retrieval/text_tokens.h"

namespace sift::synth {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    parts.emplace_back(trim(s.substr(start, end == std::string_view::npos ? end : end - start)));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

std::vector<std::string> split_list(const std::string& column) {
  std::vector<std::string> items;
  if (column.empty()) return items;
  for (std::string& item : split(column, ','))
    if (!item.empty()) items.push_back(std::move(item));
  return items;
}

QualificationKind parse_kind(const std::string& text, int line_no) {
  if (text == "skill") return QualificationKind::skill;
  if (text == "certification") return QualificationKind::certification;
  if (text == "language") return QualificationKind::language;
  if (text == "domain") return QualificationKind::domain;
  fail("catalog line {}: unknown kind '{}' (skill, certification, language, domain)", line_no, text);
}

bool is_valid_id(const std::string& id) {
  return id.size() >= 2 && id[0] == 'q' &&
         std::all_of(id.begin() + 1, id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A row as written, before names are resolved to indices.
struct RawRow {
  int line_no;
  std::vector<std::string> implies;
  std::vector<std::string> near_misses;
};

}  // namespace

std::string_view kind_name(QualificationKind kind) {
  switch (kind) {
    case QualificationKind::skill: return "skill";
    case QualificationKind::certification: return "certification";
    case QualificationKind::language: return "language";
    case QualificationKind::domain: return "domain";
  }
  return "skill";
}

Catalog Catalog::parse(std::string_view table) {
  Catalog catalog;
  std::vector<RawRow> raw_rows;
  std::string category;
  QualificationKind kind = QualificationKind::skill;
  std::unordered_map<std::string, int> by_name;
  std::unordered_set<std::string> ids;

  int line_no = 0;
  for (const std::string& line : split(table, '\n')) {
    ++line_no;
    if (line.empty() || line.starts_with("//")) continue;
    if (line.starts_with("==")) {
      std::vector<std::string> header = split(std::string_view(line).substr(2), '|');
      if (header.size() != 2 || header[0].empty())
        fail("catalog line {}: a category header is '== <category> | <kind>'", line_no);
      category = header[0];
      kind = parse_kind(header[1], line_no);
      catalog.categories_.push_back(category);
      continue;
    }
    std::vector<std::string> columns = split(line, '|');
    if (columns.size() < 2 || columns.size() > 6)
      fail("catalog line {}: expected 2 to 6 '|'-separated columns, got {}", line_no, columns.size());
    if (category.empty()) fail("catalog line {}: row before any '== category' header", line_no);
    columns.resize(6);

    Qualification q;
    q.id = columns[0];
    q.name = columns[1];
    q.category = category;
    q.kind = kind;
    q.aliases = split_list(columns[2]);
    q.titles = split_list(columns[5]);
    if (!is_valid_id(q.id)) fail("catalog line {}: bad id '{}' (expected q<digits>)", line_no, q.id);
    if (q.name.empty()) fail("catalog line {}: empty name", line_no);

    int index = catalog.size();
    if (!ids.insert(q.id).second)
      fail("catalog line {}: duplicate id {}", line_no, q.id);
    if (!by_name.emplace(q.name, index).second)
      fail("catalog line {}: duplicate name '{}'", line_no, q.name);
    catalog.qualifications_.push_back(q);
    for (const std::string& surface : catalog.surface_forms(index)) {
      std::string key = retrieval::surface_key(surface);
      if (key.empty()) fail("catalog line {}: surface form '{}' has no word characters", line_no, surface);
      auto [it, inserted] = catalog.by_surface_key_.emplace(key, index);
      if (!inserted)
        fail("catalog line {}: '{}' already states '{}'", line_no, surface,
             catalog.qualifications_[size_t(it->second)].name);
    }
    raw_rows.push_back({line_no, split_list(columns[3]), split_list(columns[4])});
  }

  auto resolve = [&](const std::string& name, int row_line) {
    auto it = by_name.find(name);
    if (it == by_name.end()) fail("catalog line {}: '{}' is not a qualification name", row_line, name);
    return it->second;
  };
  for (int i = 0; i < catalog.size(); ++i) {
    Qualification& q = catalog.qualifications_[size_t(i)];
    const RawRow& raw = raw_rows[size_t(i)];
    for (const std::string& name : raw.implies) {
      int target = resolve(name, raw.line_no);
      if (target == i) fail("catalog line {}: '{}' implies itself", raw.line_no, q.name);
      q.implies.push_back(target);
    }
    for (const std::string& name : raw.near_misses) {
      int other = resolve(name, raw.line_no);
      if (other == i) fail("catalog line {}: '{}' is its own near miss", raw.line_no, q.name);
      q.near_misses.push_back(other);
      catalog.qualifications_[size_t(other)].near_misses.push_back(i);
    }
  }
  for (Qualification& q : catalog.qualifications_) {
    std::sort(q.near_misses.begin(), q.near_misses.end());
    q.near_misses.erase(std::unique(q.near_misses.begin(), q.near_misses.end()), q.near_misses.end());
  }

  // Closures by depth-first search from each row (the graph is small; cycles are harmless).
  catalog.closures_.resize(size_t(catalog.size()));
  for (int i = 0; i < catalog.size(); ++i) {
    std::vector<char> seen(size_t(catalog.size()), 0);
    std::vector<int> stack{i};
    seen[size_t(i)] = 1;
    while (!stack.empty()) {
      int q = stack.back();
      stack.pop_back();
      for (int next : catalog.qualifications_[size_t(q)].implies)
        if (!seen[size_t(next)]) {
          seen[size_t(next)] = 1;
          stack.push_back(next);
        }
    }
    for (int q = 0; q < catalog.size(); ++q)
      if (seen[size_t(q)]) catalog.closures_[size_t(i)].push_back(q);
  }
  // A near miss must be a genuinely different qualification: neither side may imply the other.
  for (int i = 0; i < catalog.size(); ++i)
    for (int other : catalog[i].near_misses)
      if (catalog.implies(i, other))
        fail("catalog: '{}' implies its near miss '{}'", catalog[i].name, catalog[other].name);
  return catalog;
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog = parse(kCatalogTable);
  return catalog;
}

std::optional<int> Catalog::find(std::string_view surface) const {
  auto it = by_surface_key_.find(retrieval::surface_key(surface));
  if (it == by_surface_key_.end()) return std::nullopt;
  return it->second;
}

std::vector<int> Catalog::in_category(std::string_view category) const {
  std::vector<int> members;
  for (int i = 0; i < size(); ++i)
    if (qualifications_[size_t(i)].category == category) members.push_back(i);
  return members;
}

std::vector<std::string> Catalog::surface_forms(int index) const {
  const Qualification& q = (*this)[index];
  std::vector<std::string> forms{q.name};
  forms.insert(forms.end(), q.aliases.begin(), q.aliases.end());
  forms.insert(forms.end(), q.titles.begin(), q.titles.end());
  return forms;
}

std::vector<int> Catalog::closure(const std::vector<int>& held) const {
  std::vector<int> all;
  for (int q : held) all.insert(all.end(), closures_[size_t(q)].begin(), closures_[size_t(q)].end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

bool Catalog::implies(int from, int to) const {
  const std::vector<int>& c = closures_[size_t(from)];
  return std::binary_search(c.begin(), c.end(), to);
}

nlohmann::ordered_json Catalog::to_json(int index) const {
  const Qualification& q = (*this)[index];
  auto ids = [this](const std::vector<int>& indices) {
    nlohmann::json list = nlohmann::json::array();
    for (int i : indices) list.push_back((*this)[i].id);
    return list;
  };
  nlohmann::ordered_json row;
  row["id"] = q.id;
  row["name"] = q.name;
  row["category"] = q.category;
  row["kind"] = kind_name(q.kind);
  row["aliases"] = q.aliases;
  row["titles"] = q.titles;
  row["implies"] = ids(q.implies);
  row["near_misses"] = ids(q.near_misses);
  return row;
}

}  // namespace sift::synth
