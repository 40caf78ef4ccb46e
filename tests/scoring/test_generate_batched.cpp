// Mode generate through the scheduler and a LocalEngine (run_jobs, the path of sift score,
// sift batch, sift serve and the Python package), with the requests of many rows decoded
// together, against each row generated alone by generate_decisions (one-row decoding, the
// plain reference): the same decisions, texts, unparsed items and usage, whatever the rows
// beside it, the call budget, the request split and the thread count. A random checkpoint
// writes no answer list, so its answers are unparsed, reported as such.
#include <gtest/gtest.h>

#include <deque>
#include <limits>

#include "core/error.h"
#include "fake_tokenizer.h"
#include "generate_artifact.h"
#include "model/model.h"
#include "model/session.h"
#include "scoring/engine.h"
#include "scoring/generate_mode.h"
#include "scoring/scheduler.h"
#include "scoring_checkpoints.h"

namespace sift {
namespace {

using testing::FakeTokenizer;
using testing::generate_test_artifact;

struct TextRow {
  std::string query;
  std::vector<std::string> items;
};

std::vector<TextRow> text_rows() {
  return {{"ten years of python", {"python", "welding", "go"}},
          {"a", {"kubernetes"}},
          {"led a team of nine at a bank", {"management", "banking", "sql", "rust", "java", "c"}},
          {"nurse", {"care", "python"}},
          {"short", {"x", "y", "z", "w"}},
          {"an accountant who writes some vba macros", {"excel"}}};
}

class GenerateBatched : public ::testing::Test {
 protected:
  static constexpr int64_t kUnlimited = 1 << 20;

  void SetUp() override {
    dir_ = testing::write_scoring_test_checkpoint("qwen3", DType::F32);
    model_ = Model::load(dir_);
  }
  void TearDown() override { testing::remove_scoring_test_checkpoints(); }

  // Each row alone, one request after another, each decoded one token per call.
  RowResult reference(const TextRow& row, int64_t max_request_tokens) const {
    Session session(*model_, 1);
    const GenerateDecisions d = generate_decisions(session, prompts_, artifact_, prompts_.query_tokens(row.query),
                                                   row.items, max_request_tokens);
    RowResult result;
    Generation& generation = result.generation.emplace();
    for (size_t i = 0; i < d.decisions.size(); ++i) {
      if (!d.decisions[i]) generation.unparsed.push_back(static_cast<int64_t>(i));
      result.scores.push_back(d.decisions[i] ? std::optional<double>(*d.decisions[i] ? 1.0 : 0.0) : std::nullopt);
      result.labels.push_back(d.decisions[i]);
    }
    result.prefill_tokens = d.prompt_tokens;
    result.requests = d.requests;
    generation.generated_tokens = d.generated_tokens;
    generation.texts = d.answer_texts;
    return result;
  }

  // The rows as generate jobs through run_jobs on one LocalEngine.
  std::vector<RowResult> through_scheduler(const std::vector<TextRow>& rows, int64_t call_tokens,
                                           int64_t max_request_tokens, int threads = 1, bool one_row = false) const {
    std::deque<ScoringJob> jobs;
    std::vector<ScoringJob*> pointers;
    for (const TextRow& row : rows) {
      ScoringJob& job = jobs.emplace_back();
      job.mode = ScoringMode::Generate;
      job.query_text = row.query;
      job.item_texts = row.items;
      pointers.push_back(&job);
    }
    SchedulerSettings settings;
    settings.request_tokens = max_request_tokens;
    settings.call_tokens = call_tokens;
    settings.max_positions = model_->config().max_position_embeddings;
    settings.generate = GenerateSetup{&prompts_, &artifact_, max_request_tokens, one_row};
    LocalEngine engine(*model_, threads);
    run_jobs(engine, pointers, settings);
    std::vector<RowResult> out;
    for (ScoringJob& job : jobs) {
      EXPECT_TRUE(job.done());
      out.push_back(job.result);
    }
    return out;
  }

  static void expect_same(const std::vector<RowResult>& got, const std::vector<RowResult>& want,
                          const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t r = 0; r < got.size(); ++r) {
      EXPECT_EQ(got[r].error, want[r].error) << what << ": row " << r;
      ASSERT_EQ(got[r].generation.has_value(), want[r].generation.has_value()) << what << ": row " << r;
      if (want[r].generation) {
        EXPECT_EQ(got[r].generation->texts, want[r].generation->texts) << what << ": row " << r;
        EXPECT_EQ(got[r].generation->unparsed, want[r].generation->unparsed) << what << ": row " << r;
        EXPECT_EQ(got[r].generation->generated_tokens, want[r].generation->generated_tokens) << what << ": row " << r;
      }
      EXPECT_EQ(got[r].scores, want[r].scores) << what << ": row " << r;
      EXPECT_EQ(got[r].labels, want[r].labels) << what << ": row " << r;
      EXPECT_EQ(got[r].prefill_tokens, want[r].prefill_tokens) << what << ": row " << r;
      EXPECT_EQ(got[r].requests, want[r].requests) << what << ": row " << r;
    }
  }

  std::vector<RowResult> references(const std::vector<TextRow>& rows, int64_t max_request_tokens) const {
    std::vector<RowResult> out;
    for (const TextRow& row : rows) out.push_back(reference(row, max_request_tokens));
    return out;
  }

  std::filesystem::path dir_;
  std::unique_ptr<Model> model_;
  FakeTokenizer tokenizer_;
  ScoringArtifact artifact_ = generate_test_artifact();
  PromptEncoder prompts_{tokenizer_, artifact_};
};

TEST_F(GenerateBatched, RowsGeneratedTogetherAreTheirOneRowBytes) {
  const std::vector<TextRow> rows = text_rows();
  const std::vector<RowResult> want = references(rows, kUnlimited);
  int64_t generated = 0, unparsed = 0;
  for (const RowResult& r : want)
    generated += r.generation->generated_tokens, unparsed += static_cast<int64_t>(r.generation->unparsed.size());
  ASSERT_GT(generated, 0) << "the reference decodes something";
  EXPECT_GT(unparsed, 0) << "a random model's answers cannot be parsed: reported, never guessed";

  for (size_t r = 0; r < rows.size(); ++r)
    expect_same(through_scheduler({rows[r]}, kUnlimited, kUnlimited), {want[r]}, "row " + std::to_string(r) + " alone");
  expect_same(through_scheduler(rows, kUnlimited, kUnlimited), want, "all rows in one batch");
  // A budget that holds about two rows' prompts and answers: rows join as others finish.
  const int64_t tight = want[2].prefill_tokens + want[2].generation->generated_tokens + 40;
  expect_same(through_scheduler(rows, tight, kUnlimited), want, "rows joining mid-decode");
  expect_same(through_scheduler(rows, 1, kUnlimited), want, "a budget below every row: one at a time");
  expect_same(through_scheduler(rows, kUnlimited, kUnlimited, 2), want, "2 threads");
  expect_same(through_scheduler(rows, kUnlimited, kUnlimited, 1, /*one_row=*/true), want, "the one-row switch");
}

TEST_F(GenerateBatched, RowsSplitIntoRequestsKeepTheirBytes) {
  const std::vector<TextRow> rows = text_rows();
  const int64_t max_request = 90;  // the longer rows take several requests
  const std::vector<RowResult> want = references(rows, max_request);
  ASSERT_GT(want[2].requests, 1) << "row 2 is split";
  expect_same(through_scheduler(rows, kUnlimited, max_request), want, "split rows together");
  expect_same(through_scheduler(rows, 2 * max_request, max_request), want, "split rows under a tight budget");
}

TEST_F(GenerateBatched, ARowThatCannotBePlannedFailsAloneAsToday) {
  std::vector<TextRow> rows = text_rows();
  rows.insert(rows.begin() + 1, TextRow{"q", {std::string(300, 'a')}});  // its item does not fit a request
  const int64_t max_request = 120;
  const std::vector<RowResult> got = through_scheduler(rows, kUnlimited, max_request);
  Session session(*model_, 1);
  try {
    generate_decisions(session, prompts_, artifact_, prompts_.query_tokens(rows[1].query), rows[1].items, max_request);
    FAIL() << "the one-row path refuses the row";
  } catch (const Error& e) {
    EXPECT_EQ(got[1].error, e.what());
  }
  std::vector<TextRow> others = rows;
  others.erase(others.begin() + 1);
  std::vector<RowResult> want = references(others, max_request);
  std::vector<RowResult> got_others = got;
  got_others.erase(got_others.begin() + 1);
  expect_same(got_others, want, "the other rows");
}

TEST_F(GenerateBatched, ARowWhoseDecodingFailsFailsAlone) {
  // Row 2's decoding fails at its third token (as a broken checkpoint's non-finite logits do):
  // the batched call stops, every row decodes again alone, and only row 2 fails, with the
  // decoding's error; the others get their one-row bytes.
  const std::vector<TextRow> rows = text_rows();
  std::vector<GenerationRequests> planned;
  for (const TextRow& row : rows)
    planned.push_back(generation_requests(prompts_, artifact_, prompts_.query_tokens(row.query), row.items, kUnlimited,
                                          model_->config().max_position_embeddings));
  for (const int64_t budget : {kUnlimited, int64_t{1}}) {
    std::vector<int> seen(rows.size(), 0);
    const DecodeLogitsHook fail_row_2 = [&](size_t r, std::span<const float>) {
      if (r == 2 && ++seen[r] >= 3) fail("row 2's logits are not finite");
    };
    Session session(*model_, 1);
    const std::vector<RowGeneration> got =
        generate_rows(session, prompts_, artifact_, planned, budget, fail_row_2);
    ASSERT_EQ(got.size(), rows.size());
    EXPECT_EQ(got[2].error, "row 2's logits are not finite") << "budget " << budget;
    for (size_t r = 0; r < rows.size(); ++r) {
      if (r == 2) continue;
      const GenerateDecisions want = generate_decisions(session, prompts_, artifact_, prompts_.query_tokens(rows[r].query),
                                                        rows[r].items, kUnlimited);
      EXPECT_EQ(got[r].error, "") << "row " << r;
      EXPECT_EQ(got[r].decisions.answer_texts, want.answer_texts) << "row " << r;
      EXPECT_EQ(got[r].decisions.decisions, want.decisions) << "row " << r;
      EXPECT_EQ(got[r].decisions.generated_tokens, want.generated_tokens) << "row " << r;
    }
  }
}

TEST(GreedyToken, ANonFiniteLogitIsAnErrorNeverAChoice) {
  // NaN compares false with everything (max_element would keep whatever came first) and an
  // infinity wins: neither is a choice of the model's.
  EXPECT_EQ(greedy_token(std::vector<float>{0.5f, 2.0f, 2.0f, -1.0f}), 1) << "ties to the lowest id";
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity()}) {
    try {
      greedy_token(std::vector<float>{0.5f, bad, 2.0f});
      FAIL() << "chose a token among " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("token id 1"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace sift
