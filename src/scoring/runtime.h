#pragma once
// Runtime: what every entry point that scores assembles around a loaded labeler, assembled in
// one place. It holds the labeler (the model, read-only, loaded once), the query-KV cache its
// engines share (scoring/prefix_cache.h), the compute threads shared out among the engines at
// work at a moment (ThreadShare, scoring/engine.h), and makes the engines: a LocalEngine (a
// session of its own) on the shared model, or, for a labeler whose engines run elsewhere
// (sift/engines.h, remote/), one of those. sift::Labeler (src/api/labeler.cpp) and sift serve's
// EnginePool (src/serve/engine_pool.h) each hold one, so a feature of the runtime (the cache's
// budget, the thread split, remote engines) is added here once.
//
// Threads: RuntimeOptions::threads <= 0 is the process default (resolve_threads, core/parallel.h:
// --threads, OMP_NUM_THREADS or the cores). With threads_per_engine each engine runs that many
// threads of its own; otherwise that many are shared out among the engines scoring at once
// (decided at each forward call: one busy engine gets them all).
#include <cstdint>
#include <functional>
#include <memory>

#include "scoring/engine.h"
#include "scoring/loaded_labeler.h"
#include "scoring/prefix_cache.h"

namespace sift {

// Makes one engine elsewhere for a labeler loaded without its weights (remote/engines.cpp).
using EngineMaker = std::function<std::unique_ptr<Engine>()>;

struct RuntimeOptions {
  int threads = 0;                 // compute threads (<= 0: the process default), see above
  bool threads_per_engine = false;  // each engine `threads` of its own, or all of them shared out
  int64_t query_cache_bytes = 0;   // the query-KV cache's budget; 0: none
  EngineMaker remote;              // set: every engine is one elsewhere, not a session here
};

class Runtime {
 public:
  Runtime(std::shared_ptr<const LoadedLabeler> labeler, RuntimeOptions options);
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const LoadedLabeler& labeler() const { return *labeler_; }
  PrefixCache& cache() { return cache_; }
  PrefixCacheStats cache_stats() const { return cache_.stats(); }
  // The count of compute threads resolved: each engine's, or all the engines' together.
  int threads() const { return threads_; }
  ThreadShare& share() { return share_; }

  // An engine for one user: `own_threads` > 0 threads of its own, else the runtime's (its
  // fixed count per engine, or a share of its threads decided at each call).
  std::unique_ptr<Engine> make_engine(int own_threads = 0);

 private:
  std::shared_ptr<const LoadedLabeler> labeler_;
  int threads_;
  bool threads_per_engine_;
  ThreadShare share_;
  LruPrefixCache cache_;
  EngineMaker remote_;
};

}  // namespace sift
