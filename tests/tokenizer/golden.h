#pragma once
// Golden files for the tokenizer parity test: made by tools/tokenizer_reference.js (Hugging
// Face tokenizers through its Node binding) into <build>/tokenizer_golden, and remade when
// the script, its shared modules or tests/tokenizer/data change.
#include "../common/node_goldens.h"

namespace sift::testing {

inline std::filesystem::path golden_dir() { return std::filesystem::path(SIFT_BINARY_DIR) / "tokenizer_golden"; }

inline std::string ensure_goldens() {
  const std::filesystem::path source(SIFT_SOURCE_DIR);
  return ensure_node_goldens(source / "tools/tokenizer_reference.js", golden_dir(),
                             {source / "tools/reference_corpus.js", source / "tools/reference_tokenizers.js",
                              source / "tests/tokenizer/data"});
}

}  // namespace sift::testing
