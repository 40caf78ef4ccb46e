#include "scoring/runtime.h"

#include <utility>

#include "core/parallel.h"

namespace sift {

Runtime::Runtime(std::shared_ptr<const LoadedLabeler> labeler, RuntimeOptions options)
    : labeler_(std::move(labeler)),
      threads_(resolve_threads(options.threads)),
      threads_per_engine_(options.threads_per_engine),
      share_(threads_),
      cache_(labeler_->artifact().version, options.query_cache_bytes),
      remote_(std::move(options.remote)) {}

std::unique_ptr<Engine> Runtime::make_engine(int own_threads) {
  if (remote_) return remote_();
  if (own_threads > 0) return std::make_unique<LocalEngine>(labeler_->model(), own_threads);
  if (threads_per_engine_) return std::make_unique<LocalEngine>(labeler_->model(), threads_);
  return std::make_unique<LocalEngine>(labeler_->model(), 0, &share_);
}

}  // namespace sift
