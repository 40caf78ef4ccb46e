// The built-in catalog: size, well-formedness, and the aliases and implications that the
// issue names explicitly.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "synth/catalog.h"
#include "retrieval/text_tokens.h"

using namespace sift::synth;

namespace {

const Catalog& catalog() { return Catalog::builtin(); }

int by_name(const std::string& name) {
  std::optional<int> q = catalog().find(name);
  EXPECT_TRUE(q.has_value()) << name;
  return q.value_or(-1);
}

}  // namespace

TEST(Catalog, HasAtLeast500Qualifications) { EXPECT_GE(catalog().size(), 500); }

TEST(Catalog, IdsAreUniqueAndWellFormed) {
  std::set<std::string> ids;
  for (int i = 0; i < catalog().size(); ++i) {
    const Qualification& q = catalog()[i];
    ASSERT_EQ(q.id.size(), 5u) << q.id;
    EXPECT_EQ(q.id[0], 'q');
    EXPECT_TRUE(ids.insert(q.id).second) << "duplicate id " << q.id;
    EXPECT_EQ(catalog().find(q.name), i);
  }
}

TEST(Catalog, NamesAndSurfaceFormsAreUnique) {
  std::set<std::string> keys;
  for (int i = 0; i < catalog().size(); ++i)
    for (const std::string& surface : catalog().surface_forms(i))
      EXPECT_TRUE(keys.insert(sift::retrieval::surface_key(surface)).second) << "'" << surface << "' is ambiguous";
}

TEST(Catalog, EverySurfaceFormResolvesToItsQualification) {
  for (int i = 0; i < catalog().size(); ++i)
    for (const std::string& surface : catalog().surface_forms(i)) EXPECT_EQ(catalog().find(surface), i) << surface;
}

TEST(Catalog, ImplicationsAndNearMissesPointToOtherExistingQualifications) {
  for (int i = 0; i < catalog().size(); ++i) {
    const Qualification& q = catalog()[i];
    for (int target : q.implies) {
      ASSERT_GE(target, 0);
      ASSERT_LT(target, catalog().size());
      EXPECT_NE(target, i) << q.name;
    }
    for (int other : q.near_misses) {
      ASSERT_GE(other, 0);
      ASSERT_LT(other, catalog().size());
      const std::vector<int>& back = catalog()[other].near_misses;
      EXPECT_NE(std::find(back.begin(), back.end(), i), back.end()) << "near miss not symmetric: " << q.name;
      EXPECT_FALSE(catalog().implies(i, other)) << q.name << " implies its near miss";
      EXPECT_FALSE(catalog().implies(other, i)) << catalog()[other].name << " implies its near miss";
    }
  }
}

TEST(Catalog, TaxonomyCoversAllKinds) {
  std::set<QualificationKind> kinds;
  for (const Qualification& q : catalog().qualifications()) kinds.insert(q.kind);
  EXPECT_EQ(kinds.size(), 4u);
  EXPECT_GE(catalog().categories().size(), 20u);
  for (const std::string& category : catalog().categories()) EXPECT_FALSE(catalog().in_category(category).empty());
}

TEST(Catalog, AliasesFromTheIssue) {
  EXPECT_EQ(catalog().find("PySpark"), catalog().find("Apache Spark"));
  EXPECT_EQ(catalog().find("EKS"), catalog().find("Kubernetes"));
  EXPECT_EQ(catalog().find("k8s"), catalog().find("Kubernetes"));
  EXPECT_EQ(catalog().find("ACLS"), catalog().find("Advanced Cardiovascular Life Support"));
  EXPECT_EQ(catalog().find("AWS SAA"), catalog().find("AWS Certified Solutions Architect"));
  EXPECT_EQ(catalog().find("node.JS"), catalog().find("Node.js"));  // case and punctuation
}

TEST(Catalog, CertificationsImplyTheirSkills) {
  EXPECT_TRUE(catalog().implies(by_name("CKA"), by_name("Kubernetes")));
  EXPECT_TRUE(catalog().implies(by_name("AWS Certified Solutions Architect"), by_name("Amazon Web Services")));
  EXPECT_FALSE(catalog().implies(by_name("Kubernetes"), by_name("CKA")));
  // Transitive: Spring Boot -> Spring Framework -> Java.
  std::vector<int> closure = catalog().closure({by_name("Spring Boot")});
  EXPECT_TRUE(std::binary_search(closure.begin(), closure.end(), by_name("Java")));
  EXPECT_FALSE(std::binary_search(closure.begin(), closure.end(), by_name("JavaScript")));
}

TEST(Catalog, NearMissesAreDifferentQualifications) {
  auto near = [](const std::string& a, const std::string& b) {
    const std::vector<int>& list = catalog()[by_name(a)].near_misses;
    return std::find(list.begin(), list.end(), by_name(b)) != list.end();
  };
  EXPECT_TRUE(near("Java", "JavaScript"));
  EXPECT_TRUE(near("Apache Spark", "Spark AR"));
  EXPECT_TRUE(near("Spark AR", "Apache Spark"));
  EXPECT_NE(by_name("Java"), by_name("JavaScript"));
}

TEST(CatalogParse, RejectsMalformedTables) {
  const char* header = "== Tools | skill\n";
  auto parse = [&](const std::string& rows) { return Catalog::parse(std::string(header) + rows); };
  EXPECT_NO_THROW(parse("q0001 | Alpha | A1 | Beta\nq0002 | Beta\n"));
  EXPECT_THROW(parse("q0001 | Alpha | | Gamma\n"), sift::Error);              // dangling implication
  EXPECT_THROW(parse("q0001 | Alpha\nq0001 | Beta\n"), sift::Error);         // duplicate id
  EXPECT_THROW(parse("q0001 | Alpha\nq0002 | Alpha\n"), sift::Error);        // duplicate name
  EXPECT_THROW(parse("q0001 | Alpha | Beta\nq0002 | Beta\n"), sift::Error);  // alias = other name
  EXPECT_THROW(parse("x1 | Alpha\n"), sift::Error);                          // bad id
  EXPECT_THROW(parse("q0001 | Alpha | | | Beta\nq0002 | Beta | | Alpha\n"), sift::Error);  // near miss implied
  EXPECT_THROW(Catalog::parse("== Tools | gadget\nq0001 | Alpha\n"), sift::Error);        // bad kind
  EXPECT_THROW(Catalog::parse("q0001 | Alpha\n"), sift::Error);                           // no category
}

TEST(CatalogJson, RowCarriesIdsNotNames) {
  int cka = by_name("Certified Kubernetes Administrator");
  nlohmann::ordered_json row = catalog().to_json(cka);
  EXPECT_EQ(row["id"], catalog()[cka].id);
  EXPECT_EQ(row["name"], "Certified Kubernetes Administrator");
  EXPECT_EQ(row["kind"], "certification");
  ASSERT_EQ(row["implies"].size(), 1u);
  EXPECT_EQ(row["implies"][0], catalog()[by_name("Kubernetes")].id);
  EXPECT_EQ(row["aliases"][0], "CKA");
}

// When one surface form contains another ("AWS Lambda" contains "AWS"), the text could be
// read as stating both; the catalog must then say how: the longer implies the shorter's
// qualification, or the two are declared near misses. Otherwise truth would hinge on a
// reading the text does not decide.
TEST(Catalog, ContainedSurfaceFormsAreImpliedOrNearMisses) {
  struct Form {
    std::vector<std::string> tokens;
    int q;
  };
  std::vector<Form> forms;
  for (int i = 0; i < catalog().size(); ++i)
    for (const std::string& surface : catalog().surface_forms(i)) forms.push_back({sift::retrieval::tokenize(surface), i});
  for (const Form& outer : forms)
    for (const Form& inner : forms) {
      if (outer.q == inner.q || inner.tokens.size() >= outer.tokens.size()) continue;
      auto hit = std::search(outer.tokens.begin(), outer.tokens.end(), inner.tokens.begin(), inner.tokens.end());
      if (hit == outer.tokens.end()) continue;
      const std::vector<int>& near = catalog()[outer.q].near_misses;
      bool explained = catalog().implies(outer.q, inner.q) || std::find(near.begin(), near.end(), inner.q) != near.end();
      EXPECT_TRUE(explained) << catalog()[outer.q].name << " contains " << catalog()[inner.q].name;
    }
}
