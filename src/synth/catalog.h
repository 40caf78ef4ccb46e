#pragma once
// The qualification catalog: a small taxonomy (kind -> category -> qualification) with the
// surface forms that state each qualification (name, aliases, job titles), what it implies
// (a certification implies its skill) and its near misses (Java / JavaScript).
// Qualifications are addressed by index (0..size-1) inside sift and by id ("q0042") outside.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace sift::synth {

enum class QualificationKind { skill, certification, language, domain };
std::string_view kind_name(QualificationKind kind);

struct Qualification {
  std::string id;        // "q0042", stable across versions
  std::string name;      // canonical name, the candidate text
  std::string category;  // "Databases"
  QualificationKind kind = QualificationKind::skill;
  std::vector<std::string> aliases;  // other names ("PySpark" for Apache Spark)
  std::vector<std::string> titles;   // job titles that state it ("Data Engineer")
  std::vector<int> implies;          // direct implications (indices)
  std::vector<int> near_misses;      // look-alike but different (indices), symmetric
};

class Catalog {
 public:
  // Parses the table format documented in catalog_table.cpp; throws sift::Error naming the
  // line on any malformed row, duplicate id/name/surface form, dangling reference, or a near
  // miss that one side implies.
  static Catalog parse(std::string_view table);
  // The built-in catalog (parsed once).
  static const Catalog& builtin();

  int size() const { return int(qualifications_.size()); }
  const Qualification& operator[](int index) const { return qualifications_[size_t(index)]; }
  const std::vector<Qualification>& qualifications() const { return qualifications_; }
  const std::vector<std::string>& categories() const { return categories_; }

  // Qualification stated by a surface form (name, alias or title; case and punctuation
  // insensitive through surface_key), if any.
  std::optional<int> find(std::string_view surface) const;
  std::vector<int> in_category(std::string_view category) const;

  // name + aliases + titles: every text that states the qualification.
  std::vector<std::string> surface_forms(int index) const;

  // Transitive closure under `implies`: sorted, unique, contains `held`.
  std::vector<int> closure(const std::vector<int>& held) const;
  // Whether holding `from` implies holding `to` (transitively; from == to counts).
  bool implies(int from, int to) const;

  // One catalog.jsonl row: {"id","name","category","kind","aliases","titles","implies","near_misses"}.
  nlohmann::ordered_json to_json(int index) const;

 private:
  std::vector<Qualification> qualifications_;
  std::vector<std::string> categories_;
  std::unordered_map<std::string, int> by_surface_key_;
  std::vector<std::vector<int>> closures_;  // closures_[i] = closure({i})
};

}  // namespace sift::synth
