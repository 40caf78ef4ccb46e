#include "synth/catalog_index.h"

namespace sift::synth {

retrieval::Bm25Index build_catalog_index(const Catalog& catalog, retrieval::Bm25Params params) {
  std::vector<std::vector<std::string>> surface_forms;
  surface_forms.reserve(size_t(catalog.size()));
  for (int i = 0; i < catalog.size(); ++i) surface_forms.push_back(catalog.surface_forms(i));
  return retrieval::index_surface_forms(surface_forms, params);
}

}  // namespace sift::synth
