#pragma once
// A public sift::Labeler over a labeler put together in memory (a model, a tokenizer and an
// artifact that are not files: the tests' fake tokenizer), for sift's own tests and tools; or
// over engines elsewhere (remote/: `remote` makes each context's engine, and the labeler may
// be loaded without weights).
#include <functional>
#include <memory>

#include "scoring/loaded_labeler.h"
#include "scoring/runtime.h"
#include "sift/labeler.h"

namespace sift {

Labeler labeler_of(std::unique_ptr<LoadedLabeler> loaded, const LoadOptions& options = {}, EngineMaker remote = {});

}  // namespace sift
