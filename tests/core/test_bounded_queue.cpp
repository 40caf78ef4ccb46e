// BoundedQueue: try_push (the server's admission check) against the cost capacity,
// pop_batch taking what is queued up to a budget, push waiting for room (woken by a pop or by
// close()) and pop_batch waiting for an item (woken by a push or by close()), under threads.
// No check depends on timing: what a waiting thread may not have done yet is implied by the
// capacity, and a missing wake-up shows as a test that never ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

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

TEST(BoundedQueue, PushWaitsForRoomAndAPopWakesIt) {
  BoundedQueue<int> queue(10);
  ASSERT_TRUE(queue.push(1, 8));
  std::thread producer([&] { EXPECT_TRUE(queue.push(2, 5)); });  // 8 + 5 > 10: waits
  // Whenever this runs, item 2 cannot be in the queue yet: the capacity holds it back.
  const std::vector<int> first = queue.pop_batch(100);
  EXPECT_EQ(first, std::vector<int>({1}));
  if (first.size() == 1) {
    EXPECT_EQ(queue.pop_batch(100), std::vector<int>({2}));  // the pop made room
  }
  producer.join();
}

// The queue never holds more than its capacity (items of 1-3 against 6), however far ahead
// the producers run: a batch that may take everything never takes more than 6.
TEST(BoundedQueue, ManyProducersStayWithinTheCapacityLoseNothingAndKeepTheirOrder) {
  BoundedQueue<int> queue(6);
  constexpr int kProducers = 4, kEach = 500;
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p)
    producers.emplace_back([&, p] {
      for (int i = 0; i < kEach; ++i) EXPECT_TRUE(queue.push(p * kEach + i, 1 + (i % 3)));
    });
  std::vector<int> seen(kProducers * kEach, 0);
  std::vector<int> last(kProducers, -1);
  for (int taken = 0; taken < kProducers * kEach;) {
    const std::vector<int> batch = queue.pop_batch(1 << 30);
    int cost = 0;
    for (int item : batch) {
      cost += 1 + (item % kEach % 3);
      ++seen[static_cast<size_t>(item)];
      EXPECT_GT(item % kEach, last[static_cast<size_t>(item / kEach)]) << "a producer's items stay in order";
      last[static_cast<size_t>(item / kEach)] = item % kEach;
    }
    EXPECT_LE(cost, 6) << "the queue held more than its capacity";
    taken += static_cast<int>(batch.size());
  }
  for (std::thread& t : producers) t.join();
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), kProducers * kEach) << "each item exactly once";
}

TEST(BoundedQueue, CloseWakesWaitingProducersWhoDropTheirItems) {
  BoundedQueue<int> queue(10);
  ASSERT_TRUE(queue.push(0, 10));  // full: every push below waits
  constexpr int kProducers = 8;
  std::atomic<int> started{0}, refused{0};
  std::vector<std::thread> producers;
  for (int p = 1; p <= kProducers; ++p)
    producers.emplace_back([&, p] {
      ++started;
      if (!queue.push(p, 1)) ++refused;
    });
  while (started < kProducers) std::this_thread::yield();
  // Waiting or about to wait, each producer must return false once the queue is closed.
  queue.close();
  for (std::thread& t : producers) t.join();
  EXPECT_EQ(refused, kProducers);
  EXPECT_EQ(queue.pop_batch(100), std::vector<int>({0}));  // what was queued is still drained
  EXPECT_TRUE(queue.pop_batch(100).empty());
}

TEST(BoundedQueue, PopWaitsForAnItemAndIsWokenByAPushOrByClose) {
  BoundedQueue<int> queue(10);
  std::vector<int> got;
  std::thread consumer([&] { got = queue.pop_batch(10); });
  ASSERT_TRUE(queue.push(7, 1));
  consumer.join();
  EXPECT_EQ(got, std::vector<int>({7}));

  std::thread waiting([&] { got = queue.pop_batch(10); });
  queue.close();
  waiting.join();
  EXPECT_TRUE(got.empty()) << "closed and drained: an empty batch";
}

}  // namespace
}  // namespace sift
