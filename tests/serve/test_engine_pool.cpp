// The server's engines (serve/engine_pool.h: the scheduler's queue, --workers sessions on one
// model) through what the server uses of them, on a real tiny labeler: submitted jobs get the
// engine's own bits, on one worker or two; two workers run two batches at once; while the
// engines are busy the queue admits jobs up to --max-queue-tokens and refuses the next; a job
// whose deadline passed before an engine took it is finished unrun (504), one abandoned while
// queued is never run; close() runs what is queued and admits nothing more. Where a check
// needs the engines busy, they are held by their test gate (serve/test_gate.h: a FIFO),
// never by timing.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../io/safetensors_test_files.h"
#include "../label/tiny_labeler.h"
#include "prometheus_text.h"
#include "serve/test_gate.h"
#include "serve/engine_pool.h"
#include "serve/job.h"

namespace sift::serve {
namespace {

const std::shared_ptr<const LoadedLabeler>& shared_labeler() {
  static const std::shared_ptr<const LoadedLabeler> engine = sift::testing::tiny_labeler(0.5);
  return engine;
}
const LoadedLabeler& labeler() { return *shared_labeler(); }

struct Row {
  std::string query;
  std::vector<std::string> items;
};

std::shared_ptr<Job> job_of(const Row& row) {
  const TokenizedRow tokens = labeler().tokenize(row.query, row.items);
  auto job = std::make_shared<Job>();
  job->query = tokens.query;
  job->items = tokens.items;
  job->cost = static_cast<int64_t>(tokens.query.size());
  for (const TokenIds& item : tokens.items) job->cost += static_cast<int64_t>(item.size());
  job->readout = Readout::yes_no(labeler().answer_ids());
  job->threshold = labeler().artifact().threshold;
  return job;
}

// The engine's own mis scores of the row: the bits a job must get.
RowResult reference(const Row& row) {
  Session session(labeler().model(), 1);
  const TokenizedRow tokens = labeler().tokenize(row.query, row.items);
  return labeler().score_tokenized(session, {&tokens, 1}, ScoringOptions{})[0];
}

const Row kRows[] = {{"ten years of python and go", {"Python", "welding", "Go"}},
                     {"a nurse in intensive care", {"nursing"}},
                     {"data engineer, spark and sql", {"SQL", "Spark", "baking", "Kafka"}}};

bool finished(const Job& job) { return job.done(); }

// Whether `condition` comes to hold within 60 s (a hang detector, not a timing check).
template <typename Condition>
bool eventually(Condition condition) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

template <typename Condition>
void wait_until(Condition condition, const char* what) {
  ASSERT_TRUE(eventually(condition)) << what;
}

// Whether the engine finishes the job (a hang detector).
bool finishes(Job& job) {
  return eventually([&] { return job.done(); });
}

// The engines with their metrics, held before each batch until release() (gated), or running
// freely.
class Loop {
 public:
  explicit Loop(bool gated, int64_t max_queue_tokens = 1 << 20, int workers = 1)
      : runtime_(shared_labeler(), {.threads = workers, .query_cache_bytes = 1 << 20, .remote = {}}) {
    if (gated) {
      const std::string fifo = (dir_ / "engine-gate").string();
      EXPECT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
      gate_ = ::open(fifo.c_str(), O_RDWR);
      ::setenv(kEngineGateVariable, fifo.c_str(), 1);  // read once, as the loop starts
    }
    loop_ = std::make_unique<EnginePool>(
        runtime_, EnginePoolOptions{.max_batch_tokens = 4096, .max_queue_tokens = max_queue_tokens, .workers = workers},
        metrics_);
    ::unsetenv(kEngineGateVariable);
  }
  ~Loop() {
    if (gate_ >= 0) release(1 << 12);
    loop_.reset();
    if (gate_ >= 0) ::close(gate_);
  }
  EnginePool& operator*() { return *loop_; }
  EnginePool* operator->() { return loop_.get(); }

  void release(int batches) { ASSERT_EQ(::write(gate_, std::string(size_t(batches), 'x').data(), size_t(batches)), batches); }
  double metric(const std::string& name) const { return testing::sample(metrics_.render(loop_->cache_stats()), name).value_or(-1); }
  // Until the engine has taken `n` jobs off the queue (each observes its queue wait).
  void wait_taken(int n) {
    wait_until([&] { return metric("sift_queue_wait_seconds_count") >= n; }, "the engine never took the job");
  }

 private:
  Runtime runtime_;
  test::TempDir dir_;
  int gate_ = -1;
  Metrics metrics_;
  std::unique_ptr<EnginePool> loop_;
};

TEST(EnginePool, JobsGetTheEnginesOwnBits) {
  Loop loop(false);
  std::vector<std::shared_ptr<Job>> jobs;
  std::atomic<int> answered{0};
  for (const Row& row : kRows) {
    jobs.push_back(job_of(row));
    jobs.back()->on_done = [&answered, test_thread = std::this_thread::get_id()](ScoringJob&) {
      EXPECT_NE(std::this_thread::get_id(), test_thread) << "called by the engine's thread";
      ++answered;
    };
    ASSERT_TRUE(loop->submit(jobs.back()));
  }
  for (size_t r = 0; r < jobs.size(); ++r) {
    ASSERT_TRUE(finishes(*jobs[r]));
    const RowResult want = reference(kRows[r]);
    EXPECT_EQ(jobs[r]->result.scores, want.scores) << "row " << r;
    EXPECT_EQ(jobs[r]->result.labels, want.labels) << "row " << r;
    EXPECT_FALSE(jobs[r]->expired);
  }
  // Each job's on_done is called (once: finish() lets it go): the server's cue to answer.
  EXPECT_TRUE(eventually([&] { return answered == 3; })) << answered << " of 3 answered";
}

TEST(EnginePool, WhileTheEngineIsBusyTheQueueAdmitsUpToItsTokensAndNoMore) {
  Loop loop(true, 100);
  auto running = job_of(kRows[0]);
  ASSERT_TRUE(loop->submit(running));
  loop.wait_taken(1);  // held by the gate with this job
  std::vector<std::shared_ptr<Job>> queued;
  for (int64_t cost : {40, 40, 30, 20}) {
    queued.push_back(job_of(kRows[1]));
    queued.back()->cost = cost;
  }
  EXPECT_TRUE(loop->submit(queued[0]));
  EXPECT_TRUE(loop->submit(queued[1]));
  EXPECT_FALSE(loop->submit(queued[2])) << "40 + 40 + 30 tokens pass --max-queue-tokens 100";
  EXPECT_TRUE(loop->submit(queued[3])) << "40 + 40 + 20 tokens are exactly 100";
  EXPECT_EQ(loop.metric("sift_queue_tokens"), 100);
  EXPECT_EQ(loop.metric("sift_queue_requests"), 3);
  EXPECT_FALSE(finished(*running)) << "the engine is held before computing";
  loop.release(1 << 12);
  for (size_t j : {0u, 1u, 3u}) {
    ASSERT_TRUE(finishes(*queued[j]));
    EXPECT_EQ(queued[j]->result.scores, reference(kRows[1]).scores);
  }
  ASSERT_TRUE(finishes(*running));
  EXPECT_FALSE(finished(*queued[2])) << "a refused job is not queued";
  EXPECT_EQ(loop.metric("sift_queue_tokens"), 0);
}

TEST(EnginePool, AJobWhoseDeadlinePassedWhileQueuedIsFinishedUnrun) {
  Loop loop(true);
  auto running = job_of(kRows[0]);
  ASSERT_TRUE(loop->submit(running));
  loop.wait_taken(1);
  auto late = job_of(kRows[2]);
  late->deadline = Clock::now() + std::chrono::milliseconds(5);
  ASSERT_TRUE(loop->submit(late));
  std::this_thread::sleep_until(*late->deadline + std::chrono::milliseconds(1));  // the deadline passes in the queue
  loop.release(1 << 12);
  ASSERT_TRUE(finishes(*late));
  EXPECT_TRUE(late->expired);
  EXPECT_TRUE(late->result.scores.empty()) << "nothing computed";
  ASSERT_TRUE(finishes(*running));
  EXPECT_EQ(loop.metric(R"(sift_dropped_total{reason="deadline"})"), 1);
  EXPECT_EQ(loop.metric("sift_labels_total"), 3) << "only the running job's items were scored";
  EXPECT_EQ(loop.metric("sift_prefill_tokens_total"), running->result.prefill_tokens);

  auto in_time = job_of(kRows[1]);  // a deadline the engine meets: run as any other
  in_time->deadline = Clock::now() + std::chrono::hours(1);
  ASSERT_TRUE(loop->submit(in_time));
  ASSERT_TRUE(finishes(*in_time));
  EXPECT_FALSE(in_time->expired);
  EXPECT_EQ(in_time->result.scores, reference(kRows[1]).scores);
}

TEST(EnginePool, AJobAbandonedWhileQueuedIsNeverRun) {
  Loop loop(true);
  auto running = job_of(kRows[0]);
  ASSERT_TRUE(loop->submit(running));
  loop.wait_taken(1);
  auto gone = job_of(kRows[2]);
  ASSERT_TRUE(loop->submit(gone));
  ASSERT_TRUE(gone->abandon()) << "queued, not yet claimed by the engine";
  loop.release(1 << 12);
  ASSERT_TRUE(finishes(*running));
  loop->close();  // the abandoned job has been taken off the queue too
  EXPECT_FALSE(finished(*gone));
  EXPECT_TRUE(gone->result.scores.empty());
  EXPECT_EQ(loop.metric("sift_labels_total"), 3);
  EXPECT_EQ(loop.metric("sift_queue_requests"), 0);
}

TEST(EnginePool, CloseRunsWhatIsQueuedAndAdmitsNothingMore) {
  Loop loop(true);
  std::vector<std::shared_ptr<Job>> admitted = {job_of(kRows[0])};
  ASSERT_TRUE(loop->submit(admitted[0]));
  loop.wait_taken(1);
  for (const Row& row : kRows) {
    admitted.push_back(job_of(row));
    ASSERT_TRUE(loop->submit(admitted.back()));
  }
  std::thread closer([&] { loop->close(); });  // waits for the held engine to drain the queue
  // Until the queue is closed, a job may still be admitted (and must then be run too).
  for (int more = 0; more < 64; ++more) {
    auto job = job_of(kRows[1]);
    if (!loop->submit(job)) break;
    admitted.push_back(job);
  }
  loop.release(1 << 12);
  closer.join();
  for (size_t j = 0; j < admitted.size(); ++j) {
    ASSERT_TRUE(finished(*admitted[j])) << "job " << j << " was queued before close()";
    EXPECT_FALSE(admitted[j]->result.scores.empty()) << "job " << j;
  }
  EXPECT_FALSE(loop->submit(job_of(kRows[0])));
}

TEST(EnginePool, TwoWorkersRunTwoBatchesAtOnceWithTheSameBits) {
  Loop loop(true, 1 << 20, 2);
  std::vector<std::shared_ptr<Job>> jobs;
  for (const Row& row : kRows) jobs.push_back(job_of(row));
  ASSERT_TRUE(loop->submit(jobs[0]));
  loop.wait_taken(1);  // one worker holds it at the gate
  ASSERT_TRUE(loop->submit(jobs[1]));
  loop.wait_taken(2);  // taken while the first worker is held: by the second
  ASSERT_TRUE(loop->submit(jobs[2]));
  EXPECT_FALSE(finished(*jobs[0]) || finished(*jobs[1])) << "both workers are held before computing";
  loop.release(1 << 12);
  for (size_t r = 0; r < jobs.size(); ++r) {
    ASSERT_TRUE(finishes(*jobs[r]));
    const RowResult want = reference(kRows[r]);
    EXPECT_EQ(jobs[r]->result.scores, want.scores) << "row " << r;
    EXPECT_EQ(jobs[r]->result.labels, want.labels) << "row " << r;
  }
  // A query repeated on either worker comes from the one prefix cache both share.
  auto again = job_of(kRows[0]);
  ASSERT_TRUE(loop->submit(again));
  ASSERT_TRUE(finishes(*again));
  EXPECT_EQ(again->result.scores, reference(kRows[0]).scores);
  EXPECT_EQ(again->result.cached_tokens, static_cast<int64_t>(again->query.size()));
  EXPECT_GE(loop.metric("sift_kv_cache_hits_total"), 1);
}

}  // namespace
}  // namespace sift::serve
