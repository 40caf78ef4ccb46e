#pragma once
// A public sift::Labeler over a labeler put together in memory (a model, a tokenizer and an
// artifact that are not files: the tests' fake tokenizer), for sift's own tests and tools.
#include <memory>

#include "scoring/loaded_labeler.h"
#include "sift/labeler.h"

namespace sift {

Labeler labeler_of(std::unique_ptr<LoadedLabeler> loaded, const LoadOptions& options = {});

}  // namespace sift
