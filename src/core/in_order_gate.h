#pragma once
// Lets threads that finished work items out of order hand them on in order: the holder of
// item s waits until items 0..s-1 have passed. Closing wakes every waiter (it gives up).
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace sift {

class InOrderGate {
 public:
  // Waits for item `sequence`'s turn; false when the gate was closed.
  bool wait_turn(int64_t sequence) {
    std::unique_lock lock(mutex_);
    turn_changed_.wait(lock, [&] { return closed_ || next_ == sequence; });
    return !closed_;
  }
  // The item whose turn it is has passed: the next one may go.
  void pass() {
    std::lock_guard lock(mutex_);
    ++next_;
    turn_changed_.notify_all();
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    turn_changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable turn_changed_;
  int64_t next_ = 0;
  bool closed_ = false;
};

}  // namespace sift
