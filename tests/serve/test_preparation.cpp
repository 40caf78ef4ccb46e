// The preparation threads of `sift serve` (serve/preparation.h): tasks run in order, one at a
// time per thread; what waits is bounded by body bytes (a post past it is refused at once,
// never waited on); close() runs what waits. The one thread is held by a task that waits on a
// promise the test keeps, never by timing.
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <vector>

#include "serve/preparation.h"

namespace sift::serve {
namespace {

TEST(ServePreparation, WhatWaitsIsBoundedByBodyBytesAndCloseRunsIt) {
  std::promise<void> started, go;
  std::shared_future<void> released = go.get_future().share();
  std::mutex mutex;
  std::vector<int> ran;
  const auto record = [&](int n) {
    return [&, n] {
      std::lock_guard lock(mutex);
      ran.push_back(n);
    };
  };
  Preparation preparation(1, 100);
  const auto hold = [&] {
    started.set_value();
    released.wait();
  };
  ASSERT_TRUE(preparation.post(hold, 1000)) << "the first is taken at once";
  started.get_future().wait();  // the thread holds it: what follows waits
  EXPECT_TRUE(preparation.post(record(1), 60));
  EXPECT_TRUE(preparation.post(record(2), 40)) << "at the bound";
  EXPECT_FALSE(preparation.post(record(3), 1)) << "past it: refused, not waited on";
  go.set_value();
  preparation.close();
  EXPECT_EQ(ran, (std::vector<int>{1, 2})) << "in order, all that waited";
  EXPECT_FALSE(preparation.post(record(4), 1)) << "closed";
}

TEST(ServePreparation, ALargeBodyStillEntersAnEmptyQueue) {
  std::promise<void> done;
  Preparation preparation(2, 100);
  ASSERT_TRUE(preparation.post([&] { done.set_value(); }, 1'000'000));
  done.get_future().wait();
}

}  // namespace
}  // namespace sift::serve
