// sift::Labeler and sift::Context, the public API (sift/labeler.h), over the scoring layer:
// a LoadedLabeler (the model, read-only, loaded once) shared by every copy of the Labeler and
// every context; a context is an engine (scoring/engine.h: a session of its own) fed by the
// scheduler (scoring/scheduler.h). Labeler::score and score_rows borrow an idle context from
// the labeler's pool, or make one, so each thread scoring at a moment has its own.
#include "sift/labeler.h"

#include <omp.h>

#include <mutex>

#include "core/error.h"
#include "core/parallel.h"
#include "scoring/engine.h"
#include "scoring/loaded_labeler.h"
#include "scoring/prefix_cache.h"
#include "scoring/self_test.h"
#include "api/labeler_of.h"

namespace sift {

struct Labeler::Shared {
  Shared(std::unique_ptr<LoadedLabeler> loaded, const LoadOptions& options, EngineMaker remote)
      : loaded(std::move(loaded)),
        threads(options.threads),
        share(options.threads > 0 ? options.threads : default_n_threads()),
        cache(this->loaded->artifact().version, options.query_cache_bytes),
        remote(std::move(remote)) {}

  std::unique_ptr<LoadedLabeler> loaded;
  int threads;        // per context; <= 0: the cores, shared out by `share`
  ThreadShare share;  // the cores among the contexts scoring at once
  LruPrefixCache cache;
  EngineMaker remote;  // set: every context is an engine elsewhere (remote/), not a session here

  std::unique_ptr<Engine> make_engine(int context_threads) {
    if (remote) return remote();
    const int n = context_threads > 0 ? context_threads : threads;
    return std::make_unique<LocalEngine>(loaded->model(), n, n > 0 ? nullptr : &share);
  }

  // The pool behind Labeler::score and score_rows: idle engines, one made when none is idle.
  std::mutex pool_mutex;
  std::vector<std::unique_ptr<Engine>> idle;

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
    if (!engine) engine = make_engine(0);
    struct Return {  // back to the pool, even when scoring threw
      Shared& shared;
      std::unique_ptr<Engine>& engine;
      ~Return() {
        shared.share.leave();
        const std::lock_guard lock(shared.pool_mutex);
        shared.idle.push_back(std::move(engine));
      }
    };
    share.enter();
    const Return back{*this, engine};
    return fn(*engine);
  }
};

struct Context::Impl {
  Labeler labeler;
  std::shared_ptr<Labeler::Shared> shared;
  std::unique_ptr<Engine> engine;
  int threads;
};

Labeler::Labeler(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}

Labeler Labeler::load(const std::filesystem::path& dir, int threads) {
  return load(dir, LoadOptions{.threads = threads});
}

Labeler Labeler::load(const std::filesystem::path& dir, const LoadOptions& options) {
  std::unique_ptr<LoadedLabeler> loaded = LoadedLabeler::load(dir, options.weights);
  check_self_test(*loaded, options.weights, options.threads);  // before the first real row
  return labeler_of(std::move(loaded), options);
}

Labeler labeler_of(std::unique_ptr<LoadedLabeler> loaded, const LoadOptions& options, EngineMaker remote) {
  return Labeler(std::make_shared<Labeler::Shared>(std::move(loaded), options, std::move(remote)));
}

std::vector<RowResult> Labeler::score_rows(std::span<const Row> rows, const ScoringOptions& options) const {
  std::vector<TextRow> views;
  views.reserve(rows.size());
  for (const Row& row : rows) views.push_back({row.query, row.items});
  return shared_->with_pooled_engine(
      [&](Engine& engine) { return shared_->loaded->score_rows(engine, views, options, &shared_->cache); });
}

std::vector<RowResult> Labeler::score_tokenized(std::span<const TokenizedRow> rows, const ScoringOptions& options) const {
  return shared_->with_pooled_engine(
      [&](Engine& engine) { return shared_->loaded->score_tokenized(engine, rows, options, &shared_->cache); });
}

RowResult Labeler::score(std::string_view query, const std::vector<std::string>& items,
                         const ScoringOptions& options) const {
  const TextRow row{query, items};
  RowResult result = shared_->with_pooled_engine([&](Engine& engine) {
    return std::move(shared_->loaded->score_rows(engine, {&row, 1}, options, &shared_->cache)[0]);
  });
  if (!result.error.empty()) fail("{}", result.error);
  return result;
}

Context Labeler::context(int threads) const {
  const int n = threads > 0 ? threads : shared_->threads;
  std::unique_ptr<Engine> engine =
      shared_->remote ? shared_->remote() : std::make_unique<LocalEngine>(shared_->loaded->model(), n);
  return Context(std::make_unique<Context::Impl>(Context::Impl{*this, shared_, std::move(engine), n}));
}

TokenizedRow Labeler::tokenize(std::string_view query, std::span<const std::string> items,
                               const ScoringOptions& options) const {
  return shared_->loaded->tokenize(query, items, options);
}

ResolvedOptions Labeler::resolve(const ScoringOptions& options) const {
  const LoadedLabeler& loaded = *shared_->loaded;
  return {loaded.threshold(options), loaded.limits(options).request_limit(), loaded.call_tokens(options)};
}

const std::string& Labeler::version() const { return shared_->loaded->artifact().version; }
double Labeler::threshold() const { return shared_->loaded->artifact().threshold; }
bool Labeler::calibrated() const { return shared_->loaded->artifact().calibration_map.has_value(); }
bool Labeler::thresholds_probability() const {
  return shared_->loaded->artifact().threshold_on == ThresholdOn::Probability;
}
std::string Labeler::artifact_json() const { return shared_->loaded->artifact().source_json; }
int max_threads() { return kMaxThreadsPerCore * omp_get_num_procs(); }

int Labeler::threads() const { return shared_->threads > 0 ? shared_->threads : default_n_threads(); }

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;
Context::~Context() = default;

std::vector<RowResult> Context::score_rows(std::span<const Row> rows, const ScoringOptions& options) {
  std::vector<TextRow> views;
  views.reserve(rows.size());
  for (const Row& row : rows) views.push_back({row.query, row.items});
  return impl_->shared->loaded->score_rows(*impl_->engine, views, options, &impl_->shared->cache);
}

RowResult Context::score(std::string_view query, const std::vector<std::string>& items, const ScoringOptions& options) {
  const TextRow row{query, items};
  RowResult result =
      std::move(impl_->shared->loaded->score_rows(*impl_->engine, {&row, 1}, options, &impl_->shared->cache)[0]);
  if (!result.error.empty()) fail("{}", result.error);
  return result;
}

std::vector<RowResult> Context::score_tokenized(std::span<const TokenizedRow> rows, const ScoringOptions& options) {
  return impl_->shared->loaded->score_tokenized(*impl_->engine, rows, options, &impl_->shared->cache);
}

int Context::threads() const { return impl_->threads > 0 ? impl_->threads : default_n_threads(); }
const Labeler& Context::labeler() const { return impl_->labeler; }

}  // namespace sift
