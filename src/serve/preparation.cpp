#include "serve/preparation.h"

#include <algorithm>
#include <utility>

namespace sift::serve {

Preparation::Preparation(int threads, int64_t max_waiting_bytes)
    : waiting_(max_waiting_bytes), gate_(TestGate::from_environment(kPrepareGateVariable)) {
  try {
    for (int t = 0; t < std::max(1, threads); ++t) threads_.emplace_back([this] { work(); });
  } catch (...) {  // a thread the system would not start: the started ones are joined
    close();
    throw;
  }
}

Preparation::~Preparation() { close(); }

bool Preparation::post(std::function<void()> task, int64_t body_bytes) {
  return waiting_.try_push(std::move(task), std::max<int64_t>(1, body_bytes));
}

void Preparation::close() {
  waiting_.close();
  for (std::thread& thread : threads_)
    if (thread.joinable()) thread.join();
}

void Preparation::work() {
  // Every task costs at least 1, so a budget of 1 takes them one at a time; each goes (with
  // the request it holds) before the thread waits for the next.
  while (true) {
    std::vector<std::function<void()>> one = waiting_.pop_batch(1);
    if (one.empty()) return;
    gate_.pass();
    one.front()();
  }
}

}  // namespace sift::serve
