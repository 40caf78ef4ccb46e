#pragma once
// Threading: OpenMP with a static split. Kernels split work over output columns or heads,
// never over a count that depends on how many tokens are batched together, so a token's
// result does not depend on its companions (the determinism contract, docs/engine.md).
//
// OpenMP's team size is per calling thread: each thread that runs parallel loops (a scoring
// session, a tokenizer worker) sets its own with ThreadCount. set_n_threads sets the process
// default (--threads) that a thread without a count of its own gets.
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>

namespace sift {

namespace detail {
inline std::atomic<int> default_threads{0};                 // set by set_n_threads; 0 = not set
inline const int initial_threads = omp_get_max_threads();  // OpenMP's default at start-up (OMP_NUM_THREADS or all cores)
}  // namespace detail

// The process default team size, and the calling thread's current one.
inline int default_n_threads() {
  const int n = detail::default_threads.load();
  return n > 0 ? n : detail::initial_threads;
}
// A thread count as given (> 0), or the process default for 0 or less: the one place "0
// threads" becomes a count.
inline int resolve_threads(int n) { return n > 0 ? n : default_n_threads(); }
inline int n_threads() { return omp_get_max_threads(); }
inline void set_n_threads(int n) {
  if (n <= 0) return;
  detail::default_threads = n;
  omp_set_num_threads(n);
}

// Sets the calling thread's team size for a scope (n <= 0: the process default), restoring
// the previous one at the end.
class ThreadCount {
 public:
  explicit ThreadCount(int n) : previous_(omp_get_max_threads()) {
    omp_set_num_threads(resolve_threads(n));
  }
  ~ThreadCount() { omp_set_num_threads(previous_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int previous_;
};

// Whether a loop worth splitting may run as an OpenMP team: false when it is not worth it,
// and in a child forked after this process ran a team. libgomp's threads do not survive a
// fork, and a team in the child would wait forever for them; such a child runs every loop on
// its calling thread, with the same results (the thread count never changes one), and says
// so once on stderr.
bool team_allowed(bool worth_it);

// Below this much work (about flops) a loop runs on the calling thread: waking the team
// costs more than it saves, and on a busy machine a parallel region can wait a whole
// scheduling slice for a descheduled thread.
inline constexpr int64_t kMinParallelWork = 1 << 15;

// Calls body(i) for i in [0, n), split statically over the threads when the loop is worth
// it: n * work_per_item >= kMinParallelWork. The split never changes what body(i) computes.
template <typename Body>
void parallel_for(int64_t n, Body&& body, int64_t work_per_item = kMinParallelWork) {
#pragma omp parallel for schedule(static) if (team_allowed(n > 1 && n * work_per_item >= kMinParallelWork))
  for (int64_t i = 0; i < n; ++i) body(i);
}

// parallel_for for a body that may throw: exceptions must not cross the OpenMP region, so
// each is caught in its thread and the first one is rethrown after the loop.
template <typename Body>
void parallel_for_rethrow(int64_t n, Body&& body, int64_t work_per_item = kMinParallelWork) {
  std::exception_ptr first_error;
  std::mutex error_mutex;
  parallel_for(n, [&](int64_t i) {
    try {
      body(i);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  }, work_per_item);
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace sift
