// The scheduler (scoring/scheduler.h): how jobs become calls (requests split and packed under
// the budget, where each query's keys come from, prefix mode's calls, usage), with a
// recording engine; then on a real model, bit for bit against each row scored alone, with the
// prefix cache off, missed, hit and too small, rows split over calls, readouts mixed in a
// call, and the queue with several engines on one model.
#include <gtest/gtest.h>

#include <bit>
#include <deque>
#include <memory>
#include <random>

#include "scoring/engine.h"
#include "scoring/modes.h"
#include "scoring/scheduler.h"
#include "scoring_checkpoints.h"

namespace sift {
namespace {

using Ids = std::vector<int32_t>;

// Writes 0.5 for every item and records the calls as planned; holds the query of the last
// call's first request (as a LocalEngine would when it ran it from key 0).
class RecordingEngine final : public Engine {
 public:
  OfferedKeys run(const PlannedCall& call, std::span<ScoringJob* const> jobs) override {
    calls.push_back(call);
    OfferedKeys offered(call.requests.size());
    for (size_t k = 0; k < call.requests.size(); ++k) {
      const CallRequest& r = call.requests[k];
      for (int64_t i = r.items.begin; i < r.items.end; ++i) jobs[r.job]->result.scores[size_t(i)] = 0.5;
      if (r.offer_query) offered[k] = std::make_shared<const KvBlock>(KvBlock{1, {1.0f}, {2.0f}});
    }
    held = jobs[call.requests.front().job]->query;
    return offered;
  }
  bool holds(std::span<const int32_t> query) const override {
    return !query.empty() && Ids(query.begin(), query.end()) == held;
  }
  void generate(std::span<ScoringJob* const>, const GenerateSetup&, int64_t) override { FAIL() << "not asked"; }

  std::vector<PlannedCall> calls;
  Ids held;
};

// Jobs of (query, item lengths) with ids that only matter for telling queries apart.
struct Jobs {
  std::deque<ScoringJob> jobs;  // jobs do not move
  void add(Ids query, std::vector<int> item_lens, ScoringMode mode = ScoringMode::Mis) {
    ScoringJob& job = jobs.emplace_back();
    job.mode = mode;
    job.readout = Readout::yes_no({5, 9});
    job.query = std::move(query);
    for (int len : item_lens) job.items.emplace_back(len, 2);
  }
  std::vector<ScoringJob*> pointers() {
    std::vector<ScoringJob*> out;
    for (ScoringJob& job : jobs) out.push_back(&job);
    return out;
  }
};

Ids query_of(int len, int32_t id) { return Ids(size_t(len), id); }

SchedulerSettings budgets(int64_t request_tokens, int64_t call_tokens) {
  SchedulerSettings settings;
  settings.request_tokens = request_tokens;
  settings.call_tokens = call_tokens;
  settings.max_positions = 1 << 20;
  return settings;
}

std::vector<int32_t> jobs_of(const PlannedCall& call) {
  std::vector<int32_t> out;
  for (const CallRequest& r : call.requests) out.push_back(r.job);
  return out;
}

TEST(SchedulerPlan, ShortRowsShareACallUnderTheBudget) {
  Jobs jobs;
  for (int r = 0; r < 5; ++r) jobs.add(query_of(10, r + 1), {4, 4});  // 18 tokens per row, distinct queries
  RecordingEngine engine;
  run_jobs(engine, jobs.pointers(), budgets(1000, 40));
  ASSERT_EQ(engine.calls.size(), 3u);  // 2 + 2 + 1 rows
  EXPECT_EQ(engine.calls[0].n_tokens, 36);
  EXPECT_EQ(engine.calls[0].requests.size(), 2u);
  EXPECT_EQ(engine.calls[2].requests[0].job, 4);
  for (const ScoringJob& job : jobs.jobs) {
    EXPECT_TRUE(job.done());
    EXPECT_EQ(job.result.prefill_tokens, 18);
    EXPECT_EQ(job.result.cached_tokens, 0);
    EXPECT_EQ(job.result.requests, 1);
  }
  // A budget of one row's tokens: one row per call.
  RecordingEngine one_per_call;
  Jobs again;
  for (int r = 0; r < 5; ++r) again.add(query_of(10, r + 1), {4, 4});
  run_jobs(one_per_call, again.pointers(), budgets(1000, 18));
  EXPECT_EQ(one_per_call.calls.size(), 5u);
}

TEST(SchedulerPlan, ALongRowIsSplitIntoTheFewestInOrderRequests) {
  Jobs jobs;
  jobs.add(query_of(10, 1), {5, 5, 5, 5, 5});  // 35 tokens; 20 per request fits the query and 2 items
  RecordingEngine engine;
  run_jobs(engine, jobs.pointers(), budgets(20, 100));
  ASSERT_EQ(engine.calls.size(), 1u);
  const std::vector<CallRequest>& requests = engine.calls[0].requests;
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].items, (ItemRange{0, 2}));
  EXPECT_EQ(requests[1].items, (ItemRange{2, 4}));
  EXPECT_EQ(requests[2].items, (ItemRange{4, 5}));
  // The query runs once in the call; the later requests share its keys.
  EXPECT_EQ(requests[0].query, QuerySource::Run);
  EXPECT_EQ(requests[1].query, QuerySource::SameCall);
  EXPECT_EQ(requests[2].query, QuerySource::SameCall);
  EXPECT_EQ(engine.calls[0].n_tokens, 35);
  EXPECT_EQ(jobs.jobs[0].result.requests, 3);
  EXPECT_EQ(jobs.jobs[0].result.prefill_tokens, 3 * 10 + 25);  // its cost alone: the query in each request
  EXPECT_EQ(jobs.jobs[0].result.cached_tokens, 2 * 10);
}

TEST(SchedulerPlan, RowsRepeatingAQueryRunItOncePerCall) {
  Jobs jobs;
  for (int r = 0; r < 4; ++r) jobs.add(query_of(10, 7), {4});
  RecordingEngine engine;
  run_jobs(engine, jobs.pointers(), budgets(1000, 25));
  ASSERT_EQ(engine.calls.size(), 2u);  // 14 + 4 + 4 = 22 (a fourth row would make 26), then 14
  EXPECT_EQ(jobs_of(engine.calls[0]), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(engine.calls[0].n_tokens, 22);
  EXPECT_EQ(jobs.jobs[1].result.cached_tokens, 10);
  EXPECT_EQ(jobs.jobs[3].result.cached_tokens, 0) << "without reuse across calls, the next call runs it again";
  for (const ScoringJob& job : jobs.jobs) EXPECT_EQ(job.result.prefill_tokens, 14);
}

TEST(SchedulerPlan, IndependentIsOneRequestPerItemEachRunningItsQuery) {
  Jobs jobs;
  jobs.add(query_of(3, 1), {1, 2}, ScoringMode::Independent);
  jobs.add(query_of(3, 1), {1}, ScoringMode::Independent);
  RecordingEngine engine;
  SchedulerSettings settings = budgets(100, 100);
  LruPrefixCache cache("v", 1 << 20);
  settings.cache = &cache;
  settings.reuse_queries = true;
  run_jobs(engine, jobs.pointers(), settings);
  ASSERT_EQ(engine.calls.size(), 1u);
  ASSERT_EQ(engine.calls[0].requests.size(), 3u);
  for (const CallRequest& r : engine.calls[0].requests) {
    EXPECT_EQ(r.query, QuerySource::Run);
    EXPECT_FALSE(r.offer_query);
  }
  EXPECT_EQ(engine.calls[0].n_tokens, 4 + 5 + 4);
  EXPECT_EQ(jobs.jobs[0].result.requests, 2);
  EXPECT_EQ(jobs.jobs[0].result.prefill_tokens, 9);
  EXPECT_EQ(cache.stats().insertions, 0);
}

TEST(SchedulerPlan, PrefixRunsTheQueryAloneThenEachItemInACallOfItsOwn) {
  Jobs jobs;
  jobs.add(query_of(6, 1), {2, 3, 1}, ScoringMode::Prefix);
  jobs.add(query_of(6, 2), {2}, ScoringMode::Mis);
  RecordingEngine engine;
  run_jobs(engine, jobs.pointers(), budgets(100, 100));
  ASSERT_EQ(engine.calls.size(), 5u);
  EXPECT_EQ(engine.calls[0].requests[0].items.size(), 0) << "the query alone";
  EXPECT_EQ(engine.calls[0].n_tokens, 6);
  for (size_t c = 1; c <= 3; ++c) {
    ASSERT_EQ(engine.calls[c].requests.size(), 1u);
    EXPECT_EQ(engine.calls[c].requests[0].query, QuerySource::Kept);
    EXPECT_EQ(engine.calls[c].requests[0].items, (ItemRange{int64_t(c) - 1, int64_t(c)}));
  }
  EXPECT_EQ(jobs_of(engine.calls[4]), (std::vector<int32_t>{1}));
  EXPECT_EQ(jobs.jobs[0].result.prefill_tokens, 6 + 6);  // the query once, and the items
  EXPECT_EQ(jobs.jobs[0].result.requests, 3);
  EXPECT_EQ(jobs.jobs[0].result.cached_tokens, 0);
}

TEST(SchedulerPlan, AJobsPlanCostIsThePrefillItsModeRuns) {
  // A query of 6 and items of 2, 3 and 1 tokens, requests of at most 10: mis splits the row in
  // two requests ({2}, {3, 1}), independent runs the query with each item, prefix once.
  struct Want {
    ScoringMode mode;
    int64_t prompt_tokens, requests;
  };
  for (const Want& want : {Want{ScoringMode::Mis, 2 * 6 + 6, 2}, Want{ScoringMode::Independent, 3 * 6 + 6, 3},
                           Want{ScoringMode::Prefix, 6 + 6, 3}}) {
    Jobs jobs;
    jobs.add(query_of(6, 1), {2, 3, 1}, want.mode);
    const SchedulerSettings settings = budgets(10, 100);
    const PlanCost plan = job_plan_cost(jobs.jobs[0], settings);
    EXPECT_EQ(plan.prompt_tokens, want.prompt_tokens) << scoring_mode_name(want.mode);
    EXPECT_EQ(plan.requests, want.requests) << scoring_mode_name(want.mode);
    EXPECT_EQ(plan.tokens(), plan.prompt_tokens) << "nothing decoded";
    RecordingEngine engine;
    run_jobs(engine, jobs.pointers(), settings);
    EXPECT_EQ(jobs.jobs[0].result.prefill_tokens, plan.prompt_tokens) << scoring_mode_name(want.mode);
    EXPECT_EQ(jobs.jobs[0].result.requests, plan.requests) << scoring_mode_name(want.mode);
  }
}

TEST(SchedulerPlan, KeptKeysComeFromTheCacheOrTheEngineOnlyWithReuse) {
  const Ids profile = query_of(8, 3);
  for (bool reuse : {false, true}) {
    RecordingEngine engine;
    SchedulerSettings settings = budgets(100, 100);
    settings.reuse_queries = reuse;
    for (int round = 0; round < 2; ++round) {  // a profile's rounds: the engine holds it after the first
      Jobs jobs;
      jobs.add(profile, {2, 2});
      run_jobs(engine, jobs.pointers(), settings);
      const QuerySource want = round == 1 && reuse ? QuerySource::Kept : QuerySource::Run;
      EXPECT_EQ(engine.calls.back().requests[0].query, want) << "reuse " << reuse << " round " << round;
      EXPECT_EQ(engine.calls.back().requests[0].cached, nullptr);
      EXPECT_EQ(jobs.jobs[0].result.cached_tokens, want == QuerySource::Kept ? 8 : 0);
      EXPECT_EQ(jobs.jobs[0].result.prefill_tokens, 12);
    }
  }
  // With a cache: the first run offers the query's keys, the next (another engine) takes the copy.
  LruPrefixCache cache("v", 1 << 20);
  SchedulerSettings settings = budgets(100, 100);
  settings.cache = &cache;
  settings.reuse_queries = true;
  RecordingEngine first, second;
  Jobs a, b;
  a.add(profile, {2});
  b.add(profile, {2});
  run_jobs(first, a.pointers(), settings);
  EXPECT_TRUE(first.calls[0].requests[0].offer_query);
  run_jobs(second, b.pointers(), settings);
  EXPECT_EQ(second.calls[0].requests[0].query, QuerySource::Kept);
  EXPECT_NE(second.calls[0].requests[0].cached, nullptr);
  EXPECT_EQ(cache.stats().hits, 1);
}

TEST(SchedulerPlan, ARowThatDoesNotFitGetsItsErrorAndTheOthersRun) {
  Jobs jobs;
  jobs.add(query_of(10, 1), {4});
  jobs.add(query_of(10, 2), {4, 30});
  jobs.add(query_of(10, 3), {});
  RecordingEngine engine;
  run_jobs(engine, jobs.pointers(), budgets(20, 100));
  EXPECT_TRUE(jobs.jobs[0].result.error.empty());
  EXPECT_NE(jobs.jobs[1].result.error.find("item 1 (30 tokens) is 40 tokens, more than the request limit of 20"),
            std::string::npos) << jobs.jobs[1].result.error;
  EXPECT_TRUE(jobs.jobs[2].result.scores.empty());
  for (const ScoringJob& job : jobs.jobs) EXPECT_TRUE(job.done());
  EXPECT_EQ(engine.calls.size(), 1u);
}

// On a real model: the bits of each row scored alone.
class SchedulerOnAModel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { model_ = Model::load(testing::write_scoring_test_checkpoint("qwen3", DType::F32)).release(); }
  static void TearDownTestSuite() {
    delete model_;
    testing::remove_scoring_test_checkpoints();
  }

  // Rows over three queries (row r uses queries[r % 3]).
  struct Rows {
    std::vector<TokenIds> queries;
    std::vector<std::vector<TokenIds>> items;
  };
  static Rows random_rows(uint64_t seed, int n_rows = 7) {
    std::mt19937 rng(seed);
    auto ids = [&](int n) {
      TokenIds out(static_cast<size_t>(n));
      for (int32_t& id : out) id = static_cast<int32_t>(rng() % 1000);
      return out;
    };
    Rows rows;
    for (int q = 0; q < 3; ++q) rows.queries.push_back(ids(8 + 6 * q));
    for (int r = 0; r < n_rows; ++r) {
      std::vector<TokenIds> items;
      for (int i = 0, n = 1 + static_cast<int>(rng() % 12); i < n; ++i) items.push_back(ids(1 + static_cast<int>(rng() % 9)));
      rows.items.push_back(std::move(items));
    }
    return rows;
  }

  // Each row alone, one call, independent mode: the reference bits.
  static std::vector<std::vector<double>> alone(const Rows& rows) {
    Session session(*model_, 1);
    std::vector<std::vector<double>> out;
    for (size_t r = 0; r < rows.items.size(); ++r) {
      const TokenRow row{rows.queries[r % 3], rows.items[r]};
      out.push_back(score_token_rows(session, ScoringMode::Independent, kAnswer, {&row, 1}, {4096, 4096})[0].scores);
    }
    return out;
  }

  static std::vector<std::shared_ptr<ScoringJob>> jobs_of(const Rows& rows, ScoringMode mode = ScoringMode::Mis,
                                                          Readout readout = Readout::yes_no(kAnswer)) {
    std::vector<std::shared_ptr<ScoringJob>> jobs;
    for (size_t r = 0; r < rows.items.size(); ++r) {
      auto job = std::make_shared<ScoringJob>();
      job->mode = mode;
      job->readout = readout;
      job->query = rows.queries[r % 3];
      job->items = rows.items[r];
      job->cost = job_plan_cost(*job, settings(4096, nullptr)).tokens();
      jobs.push_back(job);
    }
    return jobs;
  }

  static SchedulerSettings settings(int64_t call_tokens, PrefixCache* cache) {
    SchedulerSettings s;
    s.request_tokens = std::min<int64_t>(4096, call_tokens);
    s.call_tokens = call_tokens;
    s.max_positions = model_->config().max_position_embeddings;
    s.cache = cache;
    s.reuse_queries = cache && cache->enabled();
    return s;
  }

  static void run(Engine& engine, std::vector<std::shared_ptr<ScoringJob>>& jobs, const SchedulerSettings& s) {
    std::vector<ScoringJob*> raw;
    for (auto& job : jobs) raw.push_back(job.get());
    run_jobs(engine, raw, s);
    for (auto& job : jobs) EXPECT_TRUE(job->done()) << "every job is finished";
  }

  static std::vector<uint64_t> bits(const std::vector<double>& scores) {
    std::vector<uint64_t> out;
    for (double s : scores) out.push_back(std::bit_cast<uint64_t>(s));
    return out;
  }
  static std::vector<uint64_t> bits(const ScoringJob& job) {
    std::vector<uint64_t> out;
    for (const auto& s : job.result.scores) out.push_back(std::bit_cast<uint64_t>(s.value()));
    return out;
  }

  static constexpr AnswerTokenIds kAnswer{5, 9};
  static inline Model* model_ = nullptr;
};

TEST_F(SchedulerOnAModel, SameBitsInEveryModeWithTheCacheOffMissedHitAndTooSmall) {
  const Rows rows = random_rows(1);
  const auto want = alone(rows);
  for (ScoringMode mode : {ScoringMode::Mis, ScoringMode::Independent, ScoringMode::Prefix}) {
    for (int64_t budget : {int64_t{0}, int64_t{1} << 30, int64_t{100}}) {  // off, large, smaller than any query
      for (int64_t call_tokens : {int64_t{4096}, int64_t{40}, int64_t{29}}) {  // one call, splits, about an item a call
        LruPrefixCache cache("v1", budget);
        LocalEngine engine(*model_, 1);
        for (int round = 0; round < 2; ++round) {  // round 1 misses, round 2 hits (when the cache holds)
          auto jobs = jobs_of(rows, mode);
          run(engine, jobs, settings(call_tokens, &cache));
          for (size_t r = 0; r < jobs.size(); ++r)
            EXPECT_EQ(bits(*jobs[r]), bits(want[r])) << scoring_mode_name(mode) << ", budget " << budget << ", call "
                                                     << call_tokens << ", round " << round << ", row " << r;
        }
        const PrefixCacheStats stats = cache.stats();
        if (mode != ScoringMode::Independent) {
          EXPECT_EQ(stats.hits > 0, budget == (int64_t{1} << 30)) << budget;
        }
        EXPECT_LE(stats.bytes, std::max<int64_t>(budget, 0));
      }
    }
  }
}

TEST_F(SchedulerOnAModel, AHitRunsOnlyTheItems) {
  const Rows rows = random_rows(2);
  LruPrefixCache cache("v1", int64_t{1} << 30);
  LocalEngine engine(*model_, 1);
  auto first = jobs_of(rows);
  run(engine, first, settings(4096, &cache));
  auto second = jobs_of(rows);
  run(engine, second, settings(4096, &cache));
  int64_t first_run = 0, all_items = 0;
  for (size_t r = 0; r < rows.items.size(); ++r) {
    int64_t item_tokens = 0;
    for (const TokenIds& item : rows.items[r]) item_tokens += static_cast<int64_t>(item.size());
    const RowResult& again = second[r]->result;
    EXPECT_EQ(again.prefill_tokens - again.cached_tokens, item_tokens) << "row " << r;
    EXPECT_EQ(again.prefill_tokens, first[r]->result.prefill_tokens) << "a row's cost alone does not change";
    first_run += first[r]->result.prefill_tokens - first[r]->result.cached_tokens;
    all_items += item_tokens;
  }
  // In the first round, rows sharing a query in one call ran it once between them.
  int64_t distinct_queries = 0;
  for (const TokenIds& q : rows.queries) distinct_queries += static_cast<int64_t>(q.size());
  EXPECT_EQ(first_run, all_items + distinct_queries);
}

TEST_F(SchedulerOnAModel, ASplitRowRunsItsQueryOnceWithTheCache) {
  Rows rows = random_rows(3, 1);
  rows.items[0].assign(12, TokenIds{1, 2, 3, 4, 5});
  const int64_t query_len = static_cast<int64_t>(rows.queries[0].size()), items = 12 * 5;
  const int64_t call_tokens = query_len + 15;  // three items a request: four requests
  LruPrefixCache on("v1", int64_t{1} << 30), off("v1", 0);
  LocalEngine engine(*model_, 1);
  auto cached = jobs_of(rows), uncached = jobs_of(rows);
  run(engine, cached, settings(call_tokens, &on));
  run(engine, uncached, settings(call_tokens, &off));
  const RowResult &with = cached[0]->result, &without = uncached[0]->result;
  EXPECT_EQ(with.requests, 4);
  EXPECT_EQ(with.prefill_tokens - with.cached_tokens, query_len + items);
  EXPECT_EQ(without.prefill_tokens - without.cached_tokens, 4 * query_len + items);
  EXPECT_EQ(with.prefill_tokens, without.prefill_tokens);
  EXPECT_EQ(bits(*cached[0]), bits(*uncached[0]));
  EXPECT_EQ(bits(*cached[0]), bits(alone(rows)[0]));
}

TEST_F(SchedulerOnAModel, LabelProbabilitiesAgreeWithPYesAndMixInACallBitwise) {
  const Rows rows = random_rows(4);
  const auto want = alone(rows);
  LocalEngine engine(*model_, 1);
  auto softmax = jobs_of(rows, ScoringMode::Mis, {Readout::Kind::LabelProbabilities, {kAnswer.yes, kAnswer.no}, true});
  run(engine, softmax, settings(4096, nullptr));
  auto logprob = jobs_of(rows, ScoringMode::Mis, {Readout::Kind::LabelProbabilities, {kAnswer.yes, kAnswer.no}, false});
  run(engine, logprob, settings(4096, nullptr));
  for (size_t r = 0; r < rows.items.size(); ++r) {
    for (size_t i = 0; i < want[r].size(); ++i) {
      const std::vector<double>& s = softmax[r]->label_scores[i];
      const std::vector<double>& p = logprob[r]->label_scores[i];
      EXPECT_NEAR(s[0], want[r][i], 1e-12);
      EXPECT_NEAR(s[0] + s[1], 1.0, 1e-12);
      EXPECT_GT(p[0], 0);
      EXPECT_LT(p[0] + p[1], 1.0);  // the rest of the vocabulary has the remainder
      EXPECT_NEAR(p[0] / (p[0] + p[1]), want[r][i], 1e-9);
    }
  }
  // Yes/no jobs in the same call as label jobs (the call reads more vocabulary rows, or all):
  // the same bits as yes/no jobs alone, and the label readouts those of their own calls.
  auto mixed = jobs_of(rows);
  for (size_t r = 0; r < mixed.size(); r += 2)
    mixed[r]->readout = {Readout::Kind::LabelProbabilities, {kAnswer.no, 17, kAnswer.yes}, r % 4 == 0};
  run(engine, mixed, settings(4096, nullptr));
  for (size_t r = 1; r < mixed.size(); r += 2) EXPECT_EQ(bits(*mixed[r]), bits(want[r])) << "row " << r;
}

TEST_F(SchedulerOnAModel, ConsecutivePrefixRowsOfOneQueryKeepItsKeys) {
  Rows rows = random_rows(5, 4);
  rows.queries.assign(3, rows.queries[1]);  // one query for every row
  const auto want = alone(rows);
  LruPrefixCache cache("v1", 0);  // no copies: the engine's own keys only
  LocalEngine engine(*model_, 1);
  auto jobs = jobs_of(rows, ScoringMode::Prefix);
  SchedulerSettings s = settings(4096, &cache);
  s.reuse_queries = true;
  run(engine, jobs, s);
  for (size_t r = 0; r < jobs.size(); ++r) {
    EXPECT_EQ(bits(*jobs[r]), bits(want[r])) << "row " << r;
    EXPECT_EQ(jobs[r]->result.cached_tokens, r == 0 ? 0 : int64_t(rows.queries[0].size())) << "row " << r;
  }
}

TEST_F(SchedulerOnAModel, TheQueueRunsJobsOnSeveralEnginesOverOneModel) {
  const Rows rows = random_rows(6, 24);
  const auto want = alone(rows);
  LruPrefixCache cache("v1", int64_t{1} << 30);
  std::vector<std::unique_ptr<Engine>> engines;
  for (int k = 0; k < 3; ++k) engines.push_back(std::make_unique<LocalEngine>(*model_, 1));
  std::atomic<int> callbacks{0};
  std::vector<std::shared_ptr<ScoringJob>> jobs;
  {
    Scheduler scheduler(std::move(engines), settings(60, &cache), 1 << 20);
    for (int round = 0; round < 3; ++round)
      for (auto& job : jobs_of(rows)) {
        job->on_done = [&callbacks](ScoringJob&) { ++callbacks; };
        ASSERT_TRUE(scheduler.submit(job));
        jobs.push_back(job);
      }
    scheduler.close();  // runs what is queued
  }
  EXPECT_EQ(callbacks, static_cast<int>(jobs.size()));
  for (size_t k = 0; k < jobs.size(); ++k)
    EXPECT_EQ(bits(*jobs[k]), bits(want[k % rows.items.size()])) << "job " << k;
  EXPECT_GT(cache.stats().hits, 0);
}

TEST_F(SchedulerOnAModel, TheQueueDropsJobsPastTheirDeadlineOrAbandonedAndRefusesWhenFull) {
  const Rows rows = random_rows(7, 3);
  std::vector<std::unique_ptr<Engine>> engines;
  engines.push_back(std::make_unique<LocalEngine>(*model_, 1));
  auto jobs = jobs_of(rows);
  jobs[0]->deadline = Clock::now() - std::chrono::seconds(1);
  ASSERT_TRUE(jobs[1]->abandon());
  int64_t capacity = jobs[0]->cost + jobs[1]->cost + jobs[2]->cost;
  Scheduler scheduler(std::move(engines), settings(4096, nullptr), capacity);
  for (auto& job : jobs) ASSERT_TRUE(scheduler.try_submit(job));
  jobs[2]->wait();
  jobs[0]->wait();
  EXPECT_TRUE(jobs[0]->expired);
  EXPECT_TRUE(jobs[0]->result.scores.empty()) << "nothing computed";
  EXPECT_FALSE(jobs[1]->done()) << "an abandoned job is never run";
  EXPECT_EQ(bits(*jobs[2]), bits(alone(rows)[2]));
  scheduler.close();
  EXPECT_FALSE(scheduler.try_submit(jobs_of(rows)[0])) << "closed";
}

}  // namespace
}  // namespace sift
