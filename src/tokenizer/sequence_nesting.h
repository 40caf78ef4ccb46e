#pragma once
// Tokenizer components nest only through "Sequence" (a Sequence of normalizers, of
// pre-tokenizers, of decoders, of post-processors), and their builders recurse into it.
// Hugging Face files nest one level; deeper than kMaxSequenceNesting is an Error naming the
// component path, so a crafted file cannot run the builders out of stack.
#include <string>

#include "core/error.h"

namespace sift {

inline constexpr int kMaxSequenceNesting = 16;

// `depth`: how many Sequences enclose the one at `where` (0 for a top-level component).
inline void check_sequence_nesting(int depth, const std::string& where) {
  if (depth >= kMaxSequenceNesting)
    fail("{}: Sequence nested more than {} levels deep", where, kMaxSequenceNesting);
}

}  // namespace sift
