// The label store against both backends: a SQLite file in a temp directory and a real
// PostgreSQL server started for the test (tests/e2e/lib/postgres_server.sh), each test in a
// fresh database. Skipped for PostgreSQL only where the server binary is absent.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include "core/error.h"
#include "store/label_store.h"
#include "store/sql_database.h"
#include "postgres_server.h"

using namespace sift::store;

namespace {

enum class Backend { sqlite, postgres };
void PrintTo(Backend backend, std::ostream* os) { *os << (backend == Backend::sqlite ? "sqlite" : "postgres"); }

sift::testing::PostgresServer* g_server = nullptr;
std::string g_skip_reason;

class LabelStoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  static void SetUpTestSuite() {}
  static void TearDownTestSuite() {
    delete g_server;
    g_server = nullptr;
  }

  void SetUp() override {
    static int n_databases = 0;
    if (GetParam() == Backend::sqlite) {
      dir_ = std::filesystem::temp_directory_path() /
             ("sift-store-test-" + std::to_string(::getpid()) + "-" + std::to_string(++n_databases));
      std::filesystem::create_directories(dir_);
      location_ = (dir_ / "labels.db").string();
      return;
    }
    if (!g_server && g_skip_reason.empty()) g_server = sift::testing::PostgresServer::start(g_skip_reason).release();
    if (!g_server) {
      if (!g_skip_reason.empty()) GTEST_SKIP() << "PostgreSQL: " << g_skip_reason;
      FAIL() << "no PostgreSQL server";
    }
    const std::string name = "store_test_" + std::to_string(++n_databases);
    open_sql_database(g_server->uri(), DatabaseAccess::write)->execute("CREATE DATABASE " + name);
    location_ = g_server->uri(name);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::unique_ptr<LabelStore> open(LabelStore::Access access = LabelStore::Access::write) {
    return LabelStore::open(location_, access);
  }

  std::filesystem::path dir_;
  std::string location_;
};

MemberLabels member_labels(const std::string& member, const std::string& run, std::vector<Judgment> judgments) {
  MemberLabels m;
  m.member = member;
  m.input_hash = "hash-of-" + member;
  m.artifact_version = "v1";
  m.threshold = 0.37908427711695021;
  m.rounds = judgments.empty() ? 0 : judgments.back().round;
  m.stop_reason = "below_threshold";
  m.run_id = run;
  m.labeled_at = "2026-12-01T03:01:00.123Z";
  m.judgments = std::move(judgments);
  return m;
}

Judgment judged(const std::string& q, double score, int64_t round, int64_t rank) {
  return {q, "name of " + q, score, score >= 0.37908427711695021, round, rank};
}

void expect_same(const MemberLabels& a, const MemberLabels& b) {
  EXPECT_EQ(a.member, b.member);
  EXPECT_EQ(a.input_hash, b.input_hash);
  EXPECT_EQ(a.artifact_version, b.artifact_version);
  EXPECT_EQ(a.threshold, b.threshold);
  EXPECT_EQ(a.rounds, b.rounds);
  EXPECT_EQ(a.stop_reason, b.stop_reason);
  EXPECT_EQ(a.run_id, b.run_id);
  EXPECT_EQ(a.labeled_at, b.labeled_at);
  ASSERT_EQ(a.judgments.size(), b.judgments.size());
  for (size_t i = 0; i < a.judgments.size(); ++i) {
    const Judgment &x = a.judgments[i], &y = b.judgments[i];
    EXPECT_EQ(x.qualification, y.qualification);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(std::bit_cast<uint64_t>(x.score), std::bit_cast<uint64_t>(y.score)) << x.score << " vs " << y.score;
    EXPECT_EQ(x.label, y.label);
    EXPECT_EQ(x.round, y.round);
    EXPECT_EQ(x.rank, y.rank);
  }
}

}  // namespace

TEST_P(LabelStoreTest, ReadAccessNeedsAnExistingStoreAndWriteCreatesItOnce) {
  if (GetParam() == Backend::sqlite) {
    EXPECT_THROW(
        {
          try {
            open(LabelStore::Access::read);
          } catch (const sift::Error& e) {
            EXPECT_NE(std::string(e.what()).find("no such label store"), std::string::npos) << e.what();
            throw;
          }
        },
        sift::Error);
    EXPECT_FALSE(std::filesystem::exists(location_)) << "reading must not create the file";
  } else {
    EXPECT_THROW(open(LabelStore::Access::read), sift::Error);  // an empty database is no store
  }
  open();
  open();  // the schema exists already: nothing to do, no error
  EXPECT_FALSE(open(LabelStore::Access::read)->member("nobody").has_value());
}

TEST_P(LabelStoreTest, AMemberComesBackBitForBit) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  MemberLabels m = member_labels("m000001", "run-a",
                                 {judged("q0001", 0.1, 1, 1), judged("q0002", 1.0 / 3.0, 1, 2),
                                  judged("q0003", tiny, 2, 3), judged("q0004", std::nextafter(1.0, 0.0), 2, 4),
                                  judged("q0005", 0.0, 2, 5), judged("q0006", 1.0, 2, 6)});
  m.judgments[1].name = "Zürich 日本語 \"quoted\" 'single' ?";  // placeholders inside text stay text
  open()->replace_member(m);
  std::optional<MemberLabels> back = open(LabelStore::Access::read)->member("m000001");
  ASSERT_TRUE(back.has_value());
  expect_same(m, *back);
}

TEST_P(LabelStoreTest, AnEmptyJudgmentListIsStoredAsLabeledWithNothing) {
  open()->replace_member(member_labels("m-empty", "run-a", {}));
  std::optional<MemberLabels> back = open()->member("m-empty");
  ASSERT_TRUE(back.has_value()) << "a member judged on no candidates is still labeled";
  EXPECT_TRUE(back->judgments.empty());
}

TEST_P(LabelStoreTest, ReplacingAMemberIsWholeAndAFailedReplaceChangesNothing) {
  auto store = open();
  store->replace_member(member_labels("m1", "run-a", {judged("q1", 0.9, 1, 1), judged("q2", 0.1, 1, 2),
                                                      judged("q3", 0.5, 2, 3)}));
  MemberLabels second = member_labels("m1", "run-b", {judged("q4", 0.8, 1, 1), judged("q2", 0.2, 1, 2)});
  second.input_hash = "changed";
  store->replace_member(second);
  expect_same(second, *store->member("m1"));

  // 70 rows (two INSERT statements) whose last repeats a qualification: the primary key
  // fails after the DELETE and the first 64 rows went in; all of it must roll back.
  std::vector<Judgment> many;
  for (int i = 0; i < 69; ++i) many.push_back(judged("q" + std::to_string(100 + i), 0.5, 1, i + 1));
  many.push_back(judged("q100", 0.5, 1, 70));
  EXPECT_THROW(store->replace_member(member_labels("m1", "run-c", many)), sift::Error);
  expect_same(second, *store->member("m1"));
  // The store is still usable after the rollback.
  store->replace_member(member_labels("m2", "run-c", {judged("q1", 0.9, 1, 1)}));
  EXPECT_TRUE(store->member("m2").has_value());
}

TEST_P(LabelStoreTest, MemberStatesAreLookedUpInBatches) {
  auto store = open();
  std::vector<std::string> asked;
  for (int i = 0; i < 200; ++i) {
    const std::string id = "m" + std::to_string(i);
    asked.push_back(id);
    if (i % 4 == 3) continue;  // 50 never stored
    MemberLabels m = member_labels(id, "run-a", {judged("q1", 0.5, 1, 1)});
    m.artifact_version = "v" + std::to_string(i % 3);
    store->replace_member(m);
  }
  std::unordered_map<std::string, MemberState> states = store->member_states(asked);
  EXPECT_EQ(states.size(), 150u);
  EXPECT_EQ(states.at("m0").input_hash, "hash-of-m0");
  EXPECT_EQ(states.at("m5").artifact_version, "v2");
  EXPECT_EQ(states.count("m3"), 0u);
  EXPECT_TRUE(store->member_states({}).empty());
}

TEST_P(LabelStoreTest, RunsRecordTheirStartFinishAndFingerprint) {
  auto store = open();
  store->begin_run({"run-a", "2026-12-01T00:00:00Z", "v1", "sha256:aaa", 0.5, R"({"k":20})"});
  store->finish_run("run-a", "2026-12-01T00:01:00Z", {10, 8, 2, 1, 20, 400, 37});
  store->begin_run({"run-b", "2026-12-02T00:00:00Z", "v1", "sha256:bbb", 0.5, R"({"k":20})"});
  EXPECT_EQ(store->other_fingerprint("v1", "sha256:bbb"), "sha256:aaa");
  EXPECT_EQ(store->other_fingerprint("v1", "sha256:aaa"), "sha256:bbb");
  EXPECT_FALSE(store->other_fingerprint("v2", "sha256:aaa").has_value());

  // The runs table as a user reads it: finished_at stays NULL for a run that never finished.
  auto db = open_sql_database(location_, DatabaseAccess::read);
  std::vector<std::pair<std::string, bool>> runs;
  db->query("SELECT run_id, finished_at, pairs_judged FROM runs ORDER BY run_id", {}, [&](const SqlRow& row) {
    runs.emplace_back(as_text(row[0], "run_id"), is_null(row[1]));
    if (!is_null(row[1])) {
      EXPECT_EQ(as_int(row[2], "pairs_judged"), 400);
    }
  });
  EXPECT_EQ(runs, (std::vector<std::pair<std::string, bool>>{{"run-a", false}, {"run-b", true}}));
}

TEST_P(LabelStoreTest, ExportStreamsEveryJudgmentByMemberBytesThenRank) {
  auto store = open();
  for (const char* id : {"b", "a", "B", "\xc3\xa9"})  // byte order: "B" < "a" < "b" < "é"
    store->replace_member(member_labels(id, "run-a", {judged("q2", 0.2, 1, 2), judged("q1", 0.9, 1, 1)}));
  std::vector<std::string> seen;
  store->for_each_judgment([&](const StoredJudgment& s) {
    seen.push_back(s.member + "/" + std::to_string(s.judgment.rank));
    EXPECT_EQ(s.artifact_version, "v1");
    EXPECT_EQ(s.run_id, "run-a");
    EXPECT_EQ(s.threshold, 0.37908427711695021);
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"B/1", "B/2", "a/1", "a/2", "b/1", "b/2", "\xc3\xa9/1", "\xc3\xa9/2"}));
}

TEST_P(LabelStoreTest, TwoWritersAtOnceBothLand) {
  open();  // create the schema first, as the first run does
  std::atomic<int> failures = 0;
  auto writer = [&](int which) {
    try {
      auto store = open();
      for (int i = 0; i < 40; ++i) {
        const std::string id = "w" + std::to_string(which) + "-" + std::to_string(i);
        store->replace_member(member_labels(id, "run-" + std::to_string(which), {judged("q1", 0.5, 1, 1)}));
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
      ++failures;
    }
  };
  std::thread first(writer, 1), second(writer, 2);
  first.join();
  second.join();
  EXPECT_EQ(failures, 0);
  int64_t rows = 0;
  open()->for_each_judgment([&](const StoredJudgment&) { ++rows; });
  EXPECT_EQ(rows, 80);
}

TEST_P(LabelStoreTest, ANonStoreIsNamedInTheError) {
  if (GetParam() == Backend::sqlite) {
    std::ofstream(location_) << "this is not a database, it is a text file of some length\n";
    try {
      open();
      FAIL() << "a text file opened as a store";
    } catch (const sift::Error& e) {
      EXPECT_NE(std::string(e.what()).find(location_), std::string::npos) << e.what();
    }
  } else {
    try {
      LabelStore::open(g_server->uri("no_such_database"), LabelStore::Access::write);
      FAIL() << "a missing database opened";
    } catch (const sift::Error& e) {
      EXPECT_NE(std::string(e.what()).find("no_such_database"), std::string::npos) << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, LabelStoreTest, ::testing::Values(Backend::sqlite, Backend::postgres),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::sqlite ? "sqlite" : "postgres";
                         });
