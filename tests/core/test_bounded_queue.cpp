// BoundedQueue: try_push (the server's admission check) against the cost capacity, and
// pop_batch taking what is queued up to a budget.
#include <gtest/gtest.h>

#include "core/bounded_queue.h"

namespace sift {
namespace {

TEST(BoundedQueue, TryPushRefusesWhatWouldPassTheCapacity) {
  BoundedQueue<int> queue(10);
  EXPECT_TRUE(queue.try_push(1, 6));
  EXPECT_TRUE(queue.try_push(2, 4));   // exactly at the capacity
  EXPECT_FALSE(queue.try_push(3, 1));  // one past it
  EXPECT_EQ(queue.pop_batch(6), std::vector<int>({1}));
  EXPECT_FALSE(queue.try_push(3, 7));  // 4 + 7 > 10
  EXPECT_TRUE(queue.try_push(3, 6));
  EXPECT_EQ(queue.pop_batch(100), std::vector<int>({2, 3}));
}

TEST(BoundedQueue, AnItemLargerThanTheCapacityEntersAnEmptyQueue) {
  BoundedQueue<int> queue(10);
  EXPECT_TRUE(queue.try_push(1, 50));
  EXPECT_FALSE(queue.try_push(2, 1));
  EXPECT_EQ(queue.pop_batch(5), std::vector<int>({1}));  // a batch always takes one
}

TEST(BoundedQueue, NothingEntersAClosedQueue) {
  BoundedQueue<int> queue(10);
  EXPECT_TRUE(queue.try_push(1, 1));
  queue.close();
  EXPECT_FALSE(queue.try_push(2, 1));
  EXPECT_FALSE(queue.push(3, 1));
  EXPECT_EQ(queue.pop_batch(10), std::vector<int>({1}));  // what was queued is drained
  EXPECT_TRUE(queue.pop_batch(10).empty());
}

}  // namespace
}  // namespace sift
