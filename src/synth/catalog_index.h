#pragma once
// The BM25 index of a synthetic catalog: one document per qualification, its surface forms
// (name + aliases + titles), through the shared retriever (retrieval/bm25.h).
#include "retrieval/bm25.h"
#include "synth/catalog.h"

namespace sift::synth {

retrieval::Bm25Index build_catalog_index(const Catalog& catalog, retrieval::Bm25Params params = {});

}  // namespace sift::synth
