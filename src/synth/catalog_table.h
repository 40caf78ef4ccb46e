#pragma once
// The built-in qualification table (catalog_table.cpp); Catalog::builtin() parses it.

namespace sift::synth {
extern const char* const kCatalogTable;
}
