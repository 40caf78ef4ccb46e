#pragma once
// A queue between two threads, bounded by the total cost of what it holds (tokens, bytes),
// so a fast producer cannot run ahead of a slow consumer by more than the capacity.
//
// The consumer takes batches: everything queued, in order, up to a cost budget, without
// waiting for a full batch once something is there (dynamic batching: a trickle of rows is
// scored as it comes, a flood fills each batch).
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

namespace sift {

template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(int64_t capacity) : capacity_(capacity) {}

  // Waits while the queue holds `capacity` or more (an item costing more than the capacity
  // still enters an empty queue). Returns false, dropping the item, once the queue is closed.
  bool push(T item, int64_t cost) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return closed_ || held_ == 0 || held_ + cost <= capacity_; });
    if (closed_) return false;
    items_.emplace_back(std::move(item), cost);
    held_ += cost;
    not_empty_.notify_one();
    return true;
  }

  // The same without waiting: false (the item not taken) when the queue is closed or the
  // item would take it past the capacity (an admission check: the caller answers "busy").
  bool try_push(T item, int64_t cost) {
    std::lock_guard lock(mutex_);
    if (closed_ || (held_ > 0 && held_ + cost > capacity_)) return false;
    items_.emplace_back(std::move(item), cost);
    held_ += cost;
    not_empty_.notify_one();
    return true;
  }

  // Waits for at least one item, then takes items in order while their total cost stays
  // within max_cost (always at least one). Empty only when the queue is closed and drained.
  std::vector<T> pop_batch(int64_t max_cost) {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [&] { return !items_.empty() || closed_; });
    std::vector<T> batch;
    int64_t taken = 0;
    while (!items_.empty() && (batch.empty() || taken + items_.front().second <= max_cost)) {
      taken += items_.front().second;
      held_ -= items_.front().second;
      batch.push_back(std::move(items_.front().first));
      items_.pop_front();
    }
    not_full_.notify_all();
    return batch;
  }

  // No more pushes: the consumer drains what is queued; a waiting producer gives up.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable not_empty_, not_full_;
  std::deque<std::pair<T, int64_t>> items_;
  int64_t capacity_, held_ = 0;
  bool closed_ = false;
};

}  // namespace sift
