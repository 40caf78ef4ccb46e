// The label store against both backends: a SQLite file in a temp directory and a real
// PostgreSQL server started for the test (tests/e2e/lib/postgres_server.sh), each test in a
// fresh database. Skipped for PostgreSQL only where the server binary is absent.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <thread>

#include "core/error.h"
#include "store/label_store.h"
#include "store/review_store.h"
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

// What a reviewer is shown of judged(q, score, ...) in member_labels.
ShownJudgment shown(double score) { return {score, score >= 0.37908427711695021, 0.37908427711695021, "v1"}; }

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

// A store as the first schema version wrote it: the tables without profile and margin.
void write_version_1_store(SqlDatabase& db) {
  for (const char* statement : {
           "CREATE TABLE store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
           "CREATE TABLE runs (run_id TEXT PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT, "
           "artifact_version TEXT NOT NULL, artifact_fingerprint TEXT NOT NULL, threshold DOUBLE PRECISION NOT NULL, "
           "options TEXT NOT NULL, profiles BIGINT, judged BIGINT, skipped_unchanged BIGINT, errors BIGINT, "
           "rounds BIGINT, pairs_judged BIGINT, accepted BIGINT)",
           "CREATE TABLE members (member TEXT PRIMARY KEY, input_hash TEXT NOT NULL, artifact_version TEXT NOT NULL, "
           "threshold DOUBLE PRECISION NOT NULL, rounds BIGINT NOT NULL, stop_reason TEXT NOT NULL, "
           "run_id TEXT NOT NULL, labeled_at TEXT NOT NULL)",
           "CREATE TABLE labels (member TEXT NOT NULL, qualification TEXT NOT NULL, name TEXT NOT NULL, "
           "score DOUBLE PRECISION NOT NULL, label SMALLINT NOT NULL, round BIGINT NOT NULL, rank BIGINT NOT NULL, "
           "artifact_version TEXT NOT NULL, threshold DOUBLE PRECISION NOT NULL, run_id TEXT NOT NULL, "
           "labeled_at TEXT NOT NULL, PRIMARY KEY (member, qualification))",
           "INSERT INTO store_info VALUES ('schema_version', '1')",
           "INSERT INTO members VALUES ('m1', 'h1', 'v1', 0.5, 1, 'max_rounds', 'run-a', '2026-01-01T00:00:00Z')",
           "INSERT INTO labels VALUES ('m1', 'q1', 'Python', 0.9, 1, 1, 1, 'v1', 0.5, 'run-a', '2026-01-01T00:00:00Z')",
           "INSERT INTO labels VALUES ('m1', 'q2', 'Go', 0.45, 0, 1, 2, 'v1', 0.5, 'run-a', '2026-01-01T00:00:00Z')",
       })
    db.execute(statement);
}

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const sift::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_P(LabelStoreTest, AVersion1StoreReadsAsItIsAndUpgradesInPlaceKeepingItsRows) {
  write_version_1_store(*open_sql_database(location_, DatabaseAccess::write));
  std::optional<MemberLabels> old = open(LabelStore::Access::read)->member("m1");
  ASSERT_TRUE(old.has_value());
  EXPECT_FALSE(old->profile.has_value());
  ASSERT_EQ(old->judgments.size(), 2u);
  EXPECT_NE(message_of([&] { ReviewStore::open(location_, ReviewStore::Access::read); }).find("--reviewer"),
            std::string::npos)
      << "reading for review names the way to upgrade";

  auto store = ReviewStore::open(location_, ReviewStore::Access::review);  // upgrades
  EXPECT_EQ(store->labels().schema_version(), 2);
  std::optional<MemberLabels> after = store->labels().member("m1");
  ASSERT_TRUE(after.has_value());
  expect_same(*old, *after);
  MemberPage page = store->members({.order = MemberOrder::uncertainty});
  ASSERT_EQ(page.members.size(), 1u);
  EXPECT_DOUBLE_EQ(page.members[0].margin, 0.05) << "the margin is computed from the stored labels";
  EXPECT_EQ(page.members[0].judged, 2);
  EXPECT_EQ(page.members[0].accepted, 1);
  int64_t version = 0;
  store->labels().database().query("SELECT value FROM store_info WHERE key = 'schema_version'", {},
                                   [&](const SqlRow& row) { version = std::stoll(as_text(row[0], "value")); });
  EXPECT_EQ(version, 2);
  ReviewStore::open(location_, ReviewStore::Access::review);  // a second open finds nothing to upgrade
}

TEST_P(LabelStoreTest, AVerdictIsItsOwnRowAndExportsTheTrueLabel) {
  {
    auto labels = open();
    MemberLabels m = member_labels("m1", "run-a", {judged("q1", 0.9, 1, 1), judged("q2", 0.2, 1, 2),
                                                   judged("q3", 0.4, 1, 3)});
    m.profile = "Data engineer <script>alert(1)</script>";
    labels->replace_member(m);
    MemberLabels other = member_labels("m2", "run-a", {judged("q1", 0.6, 1, 1)});
    other.profile = "Cook";
    labels->replace_member(other);
  }
  auto store = ReviewStore::open(location_, ReviewStore::Access::review);
  const Review first = store->review("m1", "q1", Verdict::wrong, "ann", "2026-12-01T00:00:01Z", shown(0.9));
  EXPECT_TRUE(first.label);
  EXPECT_FALSE(first.true_label());
  EXPECT_EQ(first.score, 0.9);
  EXPECT_EQ(first.artifact_version, "v1");
  store->review("m1", "q2", Verdict::right, "ann", "2026-12-01T00:00:02Z", shown(0.2));
  store->review("m1", "q2", Verdict::wrong, "bob", "2026-12-01T00:00:03Z", shown(0.2));  // the latest verdict counts
  store->review("m1", "q1", Verdict::right, "ann", "2026-12-01T00:00:04Z", shown(0.9));  // ann changes her mind
  EXPECT_NE(message_of([&] { store->review("m1", "q9", Verdict::right, "ann", "t", shown(0.9)); }).find("q9"),
            std::string::npos);
  EXPECT_NE(message_of([&] { store->review("nobody", "q1", Verdict::right, "ann", "t", shown(0.9)); }).find("nobody"),
            std::string::npos);

  std::optional<MemberLabels> m1 = store->labels().member("m1");
  ASSERT_TRUE(m1.has_value());
  EXPECT_TRUE(m1->judgments[0].label) << "a verdict never changes the stored judgment";
  EXPECT_EQ(m1->profile, "Data engineer <script>alert(1)</script>");
  EXPECT_EQ(store->reviews_of("m1").size(), 3u);  // (q1, ann), (q2, ann), (q2, bob)

  std::vector<ReviewedMember> rows;
  ReviewedExportCounts counts = store->for_each_reviewed_member([&](const ReviewedMember& m) { rows.push_back(m); });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].profile, "Data engineer <script>alert(1)</script>");
  EXPECT_EQ(rows[0].qualifications, (std::vector<std::string>{"q1", "q2"}));
  EXPECT_EQ(rows[0].items, (std::vector<std::string>{"name of q1", "name of q2"}));
  EXPECT_EQ(rows[0].labels, (std::vector<bool>{true, true})) << "q1: ann's latest (right, label 1); q2: bob's (wrong, label 0)";
  EXPECT_EQ(counts.pairs, 2);
  EXPECT_EQ(store->reviewed_scores(), (std::vector<std::pair<double, bool>>{{0.9, true}, {0.2, true}}));

  // The queue: unreviewed pairs, nearest the threshold (0.379...) first.
  std::vector<QueuedPair> queue = store->queue(10);
  ASSERT_EQ(queue.size(), 2u);
  EXPECT_EQ(queue[0].member + "/" + queue[0].qualification, "m1/q3");
  EXPECT_EQ(queue[1].member + "/" + queue[1].qualification, "m2/q1");

  // A changed profile makes its reviews stale: kept, not exported.
  MemberLabels changed = member_labels("m1", "run-b", {judged("q1", 0.1, 1, 1)});
  changed.input_hash = "another hash";
  changed.profile = "Another text";
  store->labels().replace_member(changed);
  rows.clear();
  counts = store->for_each_reviewed_member([&](const ReviewedMember& m) { rows.push_back(m); });
  EXPECT_TRUE(rows.empty());
  EXPECT_EQ(counts.stale, 2);
  EXPECT_EQ(store->reviews_of("m1").size(), 3u);
}

// sift label ran again between showing a judgment and the verdict on it: another threshold
// turned its label. The verdict is refused with what the store holds now, and nothing is
// written (the export would otherwise hold the opposite training label).
TEST_P(LabelStoreTest, AVerdictOnAJudgmentThatChangedSinceItWasShownIsRefused) {
  open()->replace_member(member_labels("m1", "run-a", {judged("q1", 0.5, 1, 1)}));
  auto store = ReviewStore::open(location_, ReviewStore::Access::review);
  const ShownJudgment seen = shown(0.5);
  ASSERT_TRUE(seen.label);
  MemberLabels relabeled = member_labels("m1", "run-b", {judged("q1", 0.5, 1, 1)});
  relabeled.threshold = 0.6;
  relabeled.judgments[0].label = false;
  store->labels().replace_member(relabeled);
  try {
    store->review("m1", "q1", Verdict::wrong, "ann", "t", seen);
    FAIL() << "a verdict on the old judgment was recorded";
  } catch (const JudgmentChanged& e) {
    EXPECT_EQ(e.now, (ShownJudgment{0.5, false, 0.6, "v1"}));
    EXPECT_EQ(e.name, "name of q1");
    EXPECT_NE(std::string(e.what()).find("now NO"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(store->reviews_of("m1").empty());
  for (const ShownJudgment& other : {ShownJudgment{0.5, false, 0.6, "v2"}, ShownJudgment{0.50000000000000011, false, 0.6, "v1"},
                                     ShownJudgment{0.5, true, 0.6, "v1"}, ShownJudgment{0.5, false, 0.5, "v1"}})
    EXPECT_THROW(store->review("m1", "q1", Verdict::wrong, "ann", "t", other), JudgmentChanged);
  const Review recorded = store->review("m1", "q1", Verdict::wrong, "ann", "t", {0.5, false, 0.6, "v1"});
  EXPECT_TRUE(recorded.true_label()) << "wrong about NO: the true label is YES";
}

TEST_P(LabelStoreTest, MembersPageSearchSortAndFlipCounts) {
  {
    auto labels = open();
    for (int i = 0; i < 30; ++i) {
      const double score = 0.379 + 0.01 * (i + 1) * (i % 2 ? 1 : -1);  // member i is 0.01 (i+1) from the threshold
      MemberLabels m = member_labels(fmt::format("m{:02}", i), "run-a", {judged("q1", score, 1, 1)});  // ids m00..m29
      m.profile = i == 7 ? "knows 100% of SQL_server" : "plain";
      labels->replace_member(m);
    }
  }
  auto store = ReviewStore::open(location_, ReviewStore::Access::read);
  MemberPage page = store->members({.order = MemberOrder::member, .offset = 10, .limit = 5});
  EXPECT_EQ(page.total, 30);
  ASSERT_EQ(page.members.size(), 5u);
  EXPECT_EQ(page.members[0].member, "m10");
  page = store->members({.order = MemberOrder::uncertainty, .limit = 3});
  ASSERT_EQ(page.members.size(), 3u);
  EXPECT_EQ(page.members[0].member, "m00");
  EXPECT_EQ(page.members[2].member, "m02");
  page = store->members({.text = "0%"});  // LIKE's wildcards are text
  ASSERT_EQ(page.total, 1);
  EXPECT_EQ(page.members[0].member, "m07");
  EXPECT_EQ(store->members({.text = "S_L"}).total, 0);  // "_" is no wildcard: SQL does not match
  EXPECT_EQ(store->members({.text = "plain"}).total, 29);
  page = store->members({.text = "plain", .order = MemberOrder::uncertainty, .offset = 27, .limit = 5});
  EXPECT_EQ(page.total, 29);
  ASSERT_EQ(page.members.size(), 2u);  // the last two of 29, most uncertain first: m28, m29
  EXPECT_EQ(page.members[0].member, "m28");
  EXPECT_EQ(page.members[1].member, "m29");
  EXPECT_EQ(store->members({.text = "plain", .offset = 40}).members.size(), 0u);
  EXPECT_EQ(store->members({.id_prefix = "m2"}).total, 10);
  EXPECT_EQ(store->members({.id_prefix = "m2", .text = "plain"}).total, 10);
  EXPECT_EQ(store->members({.id_prefix = "m0", .text = "SQL"}).members.at(0).member, "m07");
  EXPECT_EQ(store->members({.id_prefix = "2"}).total, 0) << "a prefix, not a substring";
  EXPECT_EQ(store->members({.id_prefix = "m29"}).total, 1);
  EXPECT_THROW(store->members({.limit = kMaxPage + 1}), sift::Error);
  EXPECT_THROW(store->members({.offset = -1}), sift::Error);

  // Judged at 0.379...: odd members are above (label 1), even below. At 0.5 the odd ones with
  // scores below 0.5 flip to no: members 1, 3, ..., 11 (0.399 .. 0.499), six of them.
  FlipCounts flips = store->flips(0.5);
  EXPECT_EQ(flips.to_no, 6);
  EXPECT_EQ(flips.to_yes, 0);
  flips = store->flips(0.3);  // even members 0..6 have scores 0.369 .. 0.309: at 0.3 they flip to yes
  EXPECT_EQ(flips.to_yes, 4);
  EXPECT_EQ(flips.to_no, 0);
  EXPECT_EQ(store->pair_count(), 30);
  EXPECT_EQ(store->member_count(), 30);
  EXPECT_THROW(store->review("m00", "q1", Verdict::right, "ann", "t", shown(0.5)), sift::Error) << "read access writes nothing";
}

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

// Four runs on a fresh store at once, as four machines starting `sift label` together: each
// creates the schema and replaces the same members with the same qualifications. All
// succeed, and each member holds one run's rows, whole.
TEST_P(LabelStoreTest, WritersOfTheSameMembersOnAFreshStoreTakeTurns) {
  constexpr int kWriters = 4, kMembers = 8, kPasses = 10;
  std::atomic<int> failures = 0;
  auto writer = [&](int which) {
    try {
      auto store = open();
      for (int pass = 0; pass < kPasses; ++pass)
        for (int i = 0; i < kMembers; ++i)
          store->replace_member(member_labels("m" + std::to_string(i), "run-" + std::to_string(which),
                                              {judged("q1", 0.1, 1, 1), judged("q2", 0.2, 1, 2), judged("q3", 0.3, 1, 3)}));
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
      ++failures;
    }
  };
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) writers.emplace_back(writer, w);
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(failures, 0);
  auto store = open(LabelStore::Access::read);
  std::map<std::string, std::string> run_of_member;
  for (int i = 0; i < kMembers; ++i) {
    const std::optional<MemberLabels> m = store->member("m" + std::to_string(i));
    ASSERT_TRUE(m.has_value()) << i;
    EXPECT_EQ(m->judgments.size(), 3u) << m->member;
    run_of_member[m->member] = m->run_id;
  }
  int64_t rows = 0;
  store->for_each_judgment([&](const StoredJudgment& s) {
    ++rows;
    EXPECT_EQ(s.run_id, run_of_member[s.member]) << s.member << "/" << s.judgment.qualification;
  });
  EXPECT_EQ(rows, kMembers * 3);
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
