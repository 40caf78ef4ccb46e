// The server's connection registry (serve/connections.h): the caps --max-connections and
// --max-connections-per-address, counted per address and released, and the list SIGTERM
// walks (on_empty when the last session ends; a session already gone is not listed); and the
// body budget every connection shares (serve/body_budget.h: --max-buffered-mb).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "serve/body_budget.h"
#include "serve/connections.h"

namespace sift::serve {
namespace {

using Cap = Connections::Cap;

TEST(Connections, OneAddressCannotTakeEverySlot) {
  Connections connections(5, 2);
  EXPECT_EQ(connections.admit("10.0.0.1"), Cap::None);
  EXPECT_EQ(connections.admit("10.0.0.1"), Cap::None);
  EXPECT_EQ(connections.admit("10.0.0.1"), Cap::PerAddress) << "a third from one address";
  EXPECT_EQ(connections.admit("10.0.0.2"), Cap::None) << "another address still gets in";
  EXPECT_EQ(connections.admit("10.0.0.2"), Cap::None);
  EXPECT_EQ(connections.admit("10.0.0.3"), Cap::None);
  EXPECT_EQ(connections.admit("10.0.0.4"), Cap::Total) << "5 open in all";
  EXPECT_EQ(connections.admit("10.0.0.1"), Cap::Total) << "the total cap is checked first";

  connections.release("10.0.0.1");
  EXPECT_EQ(connections.admit("10.0.0.4"), Cap::None) << "a released slot is free again";
  EXPECT_EQ(connections.admit("10.0.0.1"), Cap::Total);
  connections.release("10.0.0.2");
  EXPECT_EQ(connections.admit("10.0.0.1"), Cap::None) << "10.0.0.1 holds one of its two again";
  EXPECT_EQ(connections.admit("10.0.0.1"), Cap::Total);
}

TEST(Connections, CapsHoldUnderThreads) {
  Connections connections(1000, 1000);
  std::vector<std::thread> threads;
  std::atomic<int> admitted{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i)
        if (connections.admit("10.0.0." + std::to_string(t % 2)) == Cap::None) ++admitted;
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(admitted, 1000) << "4,000 tries, 1,000 slots";
  for (int i = 0; i < 1000; ++i) connections.release(i < 500 ? "10.0.0.0" : "10.0.0.1");
  EXPECT_EQ(connections.admit("10.0.0.9"), Cap::None) << "all released";
}

struct FakeConnection : Connection {
  int shut_downs = 0, force_closes = 0;
  void shut_down() override { ++shut_downs; }
  void force_close() override { ++force_closes; }
};

TEST(Connections, TheListHandsOutOnlySessionsStillAlive) {
  Connections connections(10, 10);
  EXPECT_TRUE(connections.empty());
  auto a = std::make_shared<FakeConnection>();
  auto b = std::make_shared<FakeConnection>();
  connections.add(a);
  connections.add(b);
  EXPECT_EQ(connections.all().size(), 2u);

  const Connection* gone = b.get();
  b.reset();  // destroyed before it removed itself: listed, but never handed out again
  const auto listed = connections.all();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0], a);
  for (const auto& c : listed) c->shut_down();
  EXPECT_EQ(a->shut_downs, 1);
  connections.remove(gone);
  EXPECT_FALSE(connections.empty()) << "a is still open";
}

TEST(Connections, OnEmptyIsCalledWhenTheLastSessionIsRemoved) {
  Connections connections(10, 10);
  int emptied = 0;
  connections.set_on_empty([&] { ++emptied; });
  auto a = std::make_shared<FakeConnection>();
  auto b = std::make_shared<FakeConnection>();
  connections.add(a);
  connections.add(b);
  connections.remove(a.get());
  EXPECT_EQ(emptied, 0);
  EXPECT_FALSE(connections.empty());
  connections.remove(b.get());
  EXPECT_EQ(emptied, 1);
  EXPECT_TRUE(connections.empty());
  for (const auto& c : connections.all()) c->shut_down();
  EXPECT_EQ(a->shut_downs + b->shut_downs, 0) << "nothing listed is reached";
}

TEST(BodyBudget, ASharePastTheBudgetTakesNothing) {
  BodyBudget budget(100);
  EXPECT_TRUE(budget.take(60));
  EXPECT_FALSE(budget.take(41));
  EXPECT_TRUE(budget.take(40));
  EXPECT_FALSE(budget.take(1));
  budget.give_back(60);
  EXPECT_TRUE(budget.take(60));
  EXPECT_FALSE(budget.take(int64_t{1} << 62)) << "no overflow";
}

TEST(BodyBudget, SharesHoldUnderThreads) {
  BodyBudget budget(1000);
  std::atomic<int> taken{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i)
        if (budget.take(7)) ++taken;
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(taken.load(), 1000 / 7);
}

}  // namespace
}  // namespace sift::serve
