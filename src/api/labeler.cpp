// sift::Labeler and sift::Context, the public API (sift/labeler.h), over the scoring layer:
// a Runtime (scoring/runtime.h: the model, read-only, loaded once, its query-KV cache and its
// threads) shared by every copy of the Labeler and every context; a context is an engine
// (scoring/engine.h: a session of its own) fed by the scheduler (scoring/scheduler.h). Labeler::score and score_rows borrow an idle context from
// the labeler's pool, or make one, so each thread scoring at a moment has its own.
#include "sift/labeler.h"

#include <omp.h>

#include <mutex>

#include "core/error.h"
#include "scoring/engine.h"
#include "scoring/loaded_labeler.h"
#include "scoring/runtime.h"
#include "scoring/self_test.h"
#include "api/labeler_of.h"

namespace sift {

// The labeler's runtime (scoring/runtime.h), and the pool behind Labeler::score and
// score_rows: idle engines, one made when none is idle.
struct Labeler::Impl {
  Impl(std::unique_ptr<LoadedLabeler> loaded, const LoadOptions& options, EngineMaker remote)
      : runtime(std::move(loaded), {.threads = options.threads,
                                    .threads_per_engine = options.threads > 0,
                                    .query_cache_bytes = options.query_cache_bytes,
                                    .remote = std::move(remote)}) {}

  Runtime runtime;
  std::mutex pool_mutex;
  std::vector<std::unique_ptr<Engine>> idle;

  const LoadedLabeler& loaded() const { return runtime.labeler(); }
  PrefixCache* cache() { return &runtime.cache(); }

  template <typename Fn>
  auto with_pooled_engine(Fn&& fn) {
    std::unique_ptr<Engine> engine;
    {
      const std::lock_guard lock(pool_mutex);
      if (!idle.empty()) {
        engine = std::move(idle.back());
        idle.pop_back();
      }
    }
    if (!engine) engine = runtime.make_engine();
    struct Return {  // back to the pool, even when scoring threw
      Impl& impl;
      std::unique_ptr<Engine>& engine;
      ~Return() {
        impl.runtime.share().leave();
        const std::lock_guard lock(impl.pool_mutex);
        impl.idle.push_back(std::move(engine));
      }
    };
    runtime.share().enter();
    const Return back{*this, engine};
    return fn(*engine);
  }
};

struct Context::Impl {
  Labeler labeler;  // its runtime: labeler.impl_ (Context is Labeler's friend)
  std::unique_ptr<Engine> engine;
  int threads;
};

Labeler::Labeler(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Labeler Labeler::load(const std::filesystem::path& dir, int threads) {
  return load(dir, LoadOptions{.threads = threads});
}

Labeler Labeler::load(const std::filesystem::path& dir, const LoadOptions& options) {
  std::unique_ptr<LoadedLabeler> loaded = LoadedLabeler::load(dir, options.weights);
  check_self_test(*loaded, options.weights, options.threads);  // before the first real row
  return labeler_of(std::move(loaded), options);
}

struct LabelerAccess {
  static Labeler make(std::unique_ptr<LoadedLabeler> loaded, const LoadOptions& options, EngineMaker remote) {
    return Labeler(std::make_shared<Labeler::Impl>(std::move(loaded), options, std::move(remote)));
  }
};

Labeler labeler_of(std::unique_ptr<LoadedLabeler> loaded, const LoadOptions& options, EngineMaker remote) {
  return LabelerAccess::make(std::move(loaded), options, std::move(remote));
}

std::vector<RowResult> Labeler::score_rows(std::span<const Row> rows, const ScoringOptions& options) const {
  std::vector<TextRow> views;
  views.reserve(rows.size());
  for (const Row& row : rows) views.push_back({row.query, row.items});
  return impl_->with_pooled_engine(
      [&](Engine& engine) { return impl_->loaded().score_rows(engine, views, options, impl_->cache()); });
}

std::vector<RowResult> Labeler::score_tokenized(std::span<const TokenizedRow> rows, const ScoringOptions& options) const {
  return impl_->with_pooled_engine(
      [&](Engine& engine) { return impl_->loaded().score_tokenized(engine, rows, options, impl_->cache()); });
}

RowResult Labeler::score(std::string_view query, const std::vector<std::string>& items,
                         const ScoringOptions& options) const {
  const TextRow row{query, items};
  RowResult result = impl_->with_pooled_engine([&](Engine& engine) {
    return std::move(impl_->loaded().score_rows(engine, {&row, 1}, options, impl_->cache())[0]);
  });
  if (!result.error.empty()) fail("{}", result.error);
  return result;
}

Context Labeler::context(int threads) const {
  const int n = threads > 0 ? threads : impl_->runtime.threads();  // a count of its own, never a share
  return Context(std::make_unique<Context::Impl>(Context::Impl{*this, impl_->runtime.make_engine(n), n}));
}

TokenizedRow Labeler::tokenize(std::string_view query, std::span<const std::string> items,
                               const ScoringOptions& options) const {
  return impl_->loaded().tokenize(query, items, options);
}

ResolvedOptions Labeler::resolve(const ScoringOptions& options) const {
  const LoadedLabeler& loaded = impl_->loaded();
  return {loaded.threshold(options), loaded.limits(options).request_limit(), loaded.call_tokens(options)};
}

const std::string& Labeler::version() const { return impl_->loaded().artifact().version; }
double Labeler::threshold() const { return impl_->loaded().artifact().threshold; }
bool Labeler::calibrated() const { return impl_->loaded().artifact().calibration_map.has_value(); }
bool Labeler::thresholds_probability() const {
  return impl_->loaded().artifact().threshold_on == ThresholdOn::Probability;
}
std::string Labeler::artifact_json() const { return impl_->loaded().artifact().source_json; }
int max_threads() { return kMaxThreadsPerCore * omp_get_num_procs(); }

int Labeler::threads() const { return impl_->runtime.threads(); }

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;
Context::~Context() = default;

std::vector<RowResult> Context::score_rows(std::span<const Row> rows, const ScoringOptions& options) {
  std::vector<TextRow> views;
  views.reserve(rows.size());
  for (const Row& row : rows) views.push_back({row.query, row.items});
  Labeler::Impl& shared = *impl_->labeler.impl_;
  return shared.loaded().score_rows(*impl_->engine, views, options, shared.cache());
}

RowResult Context::score(std::string_view query, const std::vector<std::string>& items, const ScoringOptions& options) {
  const TextRow row{query, items};
  Labeler::Impl& shared = *impl_->labeler.impl_;
  RowResult result = std::move(shared.loaded().score_rows(*impl_->engine, {&row, 1}, options, shared.cache())[0]);
  if (!result.error.empty()) fail("{}", result.error);
  return result;
}

std::vector<RowResult> Context::score_tokenized(std::span<const TokenizedRow> rows, const ScoringOptions& options) {
  Labeler::Impl& shared = *impl_->labeler.impl_;
  return shared.loaded().score_tokenized(*impl_->engine, rows, options, shared.cache());
}

int Context::threads() const { return impl_->threads; }
const Labeler& Context::labeler() const { return impl_->labeler; }

}  // namespace sift
