#pragma once
// Preparation: the threads that turn a parsed request into a queued job (render its prompts,
// tokenize, check them against the model, count what its plan runs, queue it), so the HTTP
// threads only read, parse and answer: while a request of megabytes of text is tokenized here,
// /health and every other connection are still answered.
//
// Tasks wait in order, bounded by the body bytes of their requests (max_waiting_bytes): a post
// that would pass it is refused (the client gets 429), so a flood of large bodies cannot pile
// up text to tokenize without end. Each thread takes one task at a time. Tests hold the
// threads with SIFT_TEST_PREPARE_GATE (test_gate.h): a byte before each task.
//
// close() stops taking tasks, runs those waiting, and joins the threads.
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "core/bounded_queue.h"
#include "serve/test_gate.h"

namespace sift::serve {

class Preparation {
 public:
  Preparation(int threads, int64_t max_waiting_bytes);
  ~Preparation();  // close()
  Preparation(const Preparation&) = delete;
  Preparation& operator=(const Preparation&) = delete;

  // Queues `task` (a request of `body_bytes`; it must not throw); false, not taken, when too
  // much waits already or the threads are closed. Never waits.
  bool post(std::function<void()> task, int64_t body_bytes);
  void close();

 private:
  void work();

  BoundedQueue<std::function<void()>> waiting_;
  TestGate gate_;
  std::vector<std::thread> threads_;
};

}  // namespace sift::serve
