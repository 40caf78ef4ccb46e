#include "core/parallel.h"

#include <pthread.h>

#include <cstdio>

namespace sift {
namespace {

std::atomic<bool> teams_started{false};        // this process has run a team of more than one thread
std::atomic<bool> forked_after_teams{false};  // ... and this is a child it forked since
std::atomic<bool> warned{false};

void on_fork_child() {
  if (teams_started.load()) forked_after_teams.store(true);
}

}  // namespace

bool team_allowed(bool worth_it) {
  static const bool registered = pthread_atfork(nullptr, nullptr, on_fork_child) == 0;
  (void)registered;
  if (!worth_it) return false;
  if (forked_after_teams.load(std::memory_order_relaxed)) {
    if (!warned.exchange(true))  // stdio, not the logger: glibc resets stdio's locks in a child
      std::fputs("sift: warning: this process was forked after sift ran threads, and OpenMP's threads do not "
                 "survive a fork: it runs on one thread (the same results; start processes with "
                 "multiprocessing's \"spawn\" or \"forkserver\", or fork before the first score, to use all cores)\n",
                 stderr);
    return false;
  }
  if (omp_get_max_threads() > 1 && !teams_started.load(std::memory_order_relaxed)) teams_started.store(true);
  return true;
}

}  // namespace sift
