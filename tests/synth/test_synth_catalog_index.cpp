// The built-in catalog's BM25 index finds qualifications by name and alias.
#include <gtest/gtest.h>

#include <algorithm>

#include "synth/catalog.h"
#include "synth/catalog_index.h"

using namespace sift::synth;
using sift::retrieval::Bm25Index;
using sift::retrieval::ScoredDocument;
using sift::retrieval::retrieve;

TEST(Bm25Catalog, RetrievesByNameAndAlias) {
  const Catalog& catalog = Catalog::builtin();
  Bm25Index index = build_catalog_index(catalog);
  EXPECT_EQ(index.n_documents(), catalog.size());
  auto best = [&](const std::string& text) { return retrieve(index, text, 1).at(0).document; };
  EXPECT_EQ(best("PySpark"), *catalog.find("Apache Spark"));
  EXPECT_EQ(best("k8s"), *catalog.find("Kubernetes"));
  EXPECT_EQ(best("Spark AR Studio"), *catalog.find("Spark AR"));
  // A near miss is retrieved as a plausible candidate: "Spark AR" also brings Apache Spark.
  std::vector<ScoredDocument> top = retrieve(index, "I build filters in Spark AR", 5);
  EXPECT_TRUE(std::any_of(top.begin(), top.end(),
                          [&](const ScoredDocument& d) { return d.document == *catalog.find("Apache Spark"); }));
}
