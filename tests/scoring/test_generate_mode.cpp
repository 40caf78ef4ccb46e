// Packed generation against a scripted session: the decode loop (prefill, then one-token
// steps {0, 1, [0, C)} at position C), its stopping rules, and the parse back to per-item decisions.
#include <gtest/gtest.h>

#include "fake_tokenizer.h"
#include "generate_artifact.h"
#include "model/session.h"
#include "scoring/generate_mode.h"

namespace sift {
namespace {

using testing::byte_ids;
using testing::FakeTokenizer;
using testing::generate_test_artifact;

ModelConfig scripted_config() {
  ModelConfig config;
  config.vocab_size = 300;
  config.n_layers = 1;
  config.n_heads = config.n_kv_heads = 1;
  config.head_dim = 2;
  config.hidden_size = 2;
  config.max_position_embeddings = 4096;
  config.eos_token_id = 299;
  return config;
}

// A session that emits `script` token by token (then EOS), whatever the input, and records
// each call; it keeps count of the cached keys as a real session does.
class ScriptedSession : public Session {
 public:
  explicit ScriptedSession(std::vector<int32_t> script)
      : Session(model_), script_(std::move(script)), logits_(300) {}
  LogitsView forward(const ForwardRequest& request) override {
    validate_request(model_.config(), request, cached_);
    calls.push_back({std::vector<int32_t>(request.positions.begin(), request.positions.end()),
                     std::vector<Segment>(request.segments.begin(), request.segments.end()), cached_});
    cached_ += static_cast<int64_t>(request.ids.size());
    const int32_t next = emitted_ < script_.size() ? script_[emitted_] : static_cast<int32_t>(model_.config().eos_token_id);
    ++emitted_;
    const auto rows = static_cast<int64_t>(request.logit_rows.size());
    logits_.assign(static_cast<size_t>(rows * 300), 0.0f);
    for (int64_t r = 0; r < rows; ++r) logits_[r * 300 + next] = 1.0f;
    return {rows, 300, logits_.data()};
  }
  int64_t n_cached() const override { return cached_; }
  void truncate(int64_t n_keys) override { cached_ = n_keys; }
  void extend_keys(int64_t n_keys) override { cached_ = n_keys; }
  void move_keys(KeyRange, int64_t) override {}  // no keys are kept: the script ignores them

  struct Call {
    std::vector<int32_t> positions;
    std::vector<Segment> segments;
    int64_t cached;
  };
  std::vector<Call> calls;

 private:
  inline static const Model model_{scripted_config(), ModelWeights{}};  // only its config is read
  std::vector<int32_t> script_;
  std::vector<float> logits_;
  size_t emitted_ = 0;
  int64_t cached_ = 0;
};

TEST(GenerateMode, DecodesAndParsesTheAnswerList) {
  FakeTokenizer tokenizer;
  const ScoringArtifact a = generate_test_artifact();
  PromptEncoder prompts(tokenizer, a);
  ScriptedSession model(tokenizer.encode("1: YES\n2: NO\n3: YES\n", {.add_special_tokens = false}));
  const std::vector<int32_t> query = prompts.query_tokens("q");
  GenerateDecisions out = generate_decisions(model, prompts, a, query, {"a", "b", "c"}, 1 << 20);
  EXPECT_EQ(out.decisions, (std::vector<std::optional<bool>>{true, false, true}));
  EXPECT_EQ(out.requests, 1);
  const int64_t prompt_len = static_cast<int64_t>(query.size() + byte_ids("1. a\n2. b\n3. c\nA:\n").size());
  EXPECT_EQ(out.prompt_tokens, prompt_len);
  // "1: YES\n" is 5 fake tokens ('1', ':', ' ', YES, '\n'): 15 tokens, stopping at the third newline.
  EXPECT_EQ(out.generated_tokens, 15);
  EXPECT_EQ(out.answer_texts, (std::vector<std::string>{"1: YES\n2: NO\n3: YES\n"}));
  // One prefill call, then a {0, 1, C} step at position C for each token but the last.
  ASSERT_EQ(model.calls.size(), 15u);
  EXPECT_EQ(model.calls[0].cached, 0);
  EXPECT_EQ(model.calls[0].segments.size(), 1u);
  EXPECT_EQ(model.calls[0].segments[0].len, prompt_len);
  for (size_t step = 1; step < model.calls.size(); ++step) {
    const int64_t c = prompt_len + static_cast<int64_t>(step) - 1;
    EXPECT_EQ(model.calls[step].cached, c);
    EXPECT_EQ(model.calls[step].positions, std::vector<int32_t>{static_cast<int32_t>(c)});
    EXPECT_EQ(model.calls[step].segments[0].context_begin, 0);
    EXPECT_EQ(model.calls[step].segments[0].context_end, c);
  }
}

TEST(GenerateMode, UnparsableAnswersAreReportedNotGuessed) {
  FakeTokenizer tokenizer;
  const ScoringArtifact a = generate_test_artifact();
  PromptEncoder prompts(tokenizer, a);
  // Item 2 gets "maybe", item 3 nothing before EOS.
  ScriptedSession model(tokenizer.encode("1: NO\n2: maybe\n", {.add_special_tokens = false}));
  GenerateDecisions out = generate_decisions(model, prompts, a, prompts.query_tokens("q"), {"a", "b", "c"}, 1 << 20);
  EXPECT_EQ(out.decisions, (std::vector<std::optional<bool>>{false, std::nullopt, std::nullopt}));
}

TEST(GenerateMode, TheBatchedDecoderReportsUnparsableAnswersAsOneRowDecodingDoes) {
  FakeTokenizer tokenizer;
  const ScoringArtifact a = generate_test_artifact();
  PromptEncoder prompts(tokenizer, a);
  const std::vector<int32_t> answer = tokenizer.encode("1: NO\n2: maybe\n", {.add_special_tokens = false});
  const std::vector<int32_t> query = prompts.query_tokens("q");
  const std::vector<std::string> items = {"a", "b", "c"};
  ScriptedSession one(answer), batched(answer);
  const GenerateDecisions want = generate_decisions(one, prompts, a, query, items, 1 << 20);
  const GenerationRequests row = generation_requests(prompts, a, query, items, 1 << 20, 4096);
  const std::vector<GenerateDecisions> got = generate_decisions_batched(batched, prompts, a, {&row, 1}, 1 << 20);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].decisions, (std::vector<std::optional<bool>>{false, std::nullopt, std::nullopt}));
  EXPECT_EQ(got[0].answer_texts, want.answer_texts);
  EXPECT_EQ(got[0].generated_tokens, want.generated_tokens);
  // The same calls, the row's keys in its region at [0, P + budget): the prompt, then each step
  // at position C seeing the row's C keys (after the region, where its key goes before it moves in).
  ASSERT_EQ(batched.calls.size(), one.calls.size());
  const int64_t region = static_cast<int64_t>(row.prompts[0].size()) + row.budgets[0];
  for (size_t step = 1; step < batched.calls.size(); ++step) {
    EXPECT_EQ(batched.calls[step].cached, region);
    EXPECT_EQ(batched.calls[step].positions, one.calls[step].positions);
    EXPECT_EQ(batched.calls[step].segments[0].context_begin, 0);
    EXPECT_EQ(batched.calls[step].segments[0].context_end, one.calls[step].segments[0].context_end);
  }
}

TEST(GenerateMode, StopsAtTheAnswerBudget) {
  FakeTokenizer tokenizer;
  const ScoringArtifact a = generate_test_artifact();
  PromptEncoder prompts(tokenizer, a);
  ScriptedSession model(std::vector<int32_t>(1000, 'x' + 16));  // never a newline, never EOS
  GenerateDecisions out = generate_decisions(model, prompts, a, prompts.query_tokens("q"), {"a", "b"}, 1 << 20);
  // Budget: tokens of "k: YES\n" (5 each) + kAnswerSlackTokens, per item.
  EXPECT_EQ(out.generated_tokens, 2 * (5 + kAnswerSlackTokens));
  EXPECT_EQ(out.decisions, (std::vector<std::optional<bool>>{std::nullopt, std::nullopt}));
}

TEST(GenerateMode, SplitRequestsKeepRowNumbers) {
  FakeTokenizer tokenizer;
  const ScoringArtifact a = generate_test_artifact();
  PromptEncoder prompts(tokenizer, a);
  // The second request lists item 3 as "3. c": its answer line is "3: ...". The script
  // answers the first request "1/2", the second "3".
  ScriptedSession model(tokenizer.encode("1: YES\n2: YES\n3: NO\n", {.add_special_tokens = false}));
  const std::vector<int32_t> query = prompts.query_tokens("q");
  const int64_t shared = static_cast<int64_t>(query.size() + prompts.generate_answer_tokens().size());
  const int64_t per_item = 5 + (5 + kAnswerSlackTokens);  // "k. a\n" + answer budget
  GenerateDecisions out = generate_decisions(model, prompts, a, query, {"a", "b", "c"}, shared + 2 * per_item);
  EXPECT_EQ(out.requests, 2);
  EXPECT_EQ(out.decisions, (std::vector<std::optional<bool>>{true, true, false}));
}

TEST(GenerateMode, ThePlanCountsThePromptsItRunsAndBoundsWhatItDecodes) {
  FakeTokenizer tokenizer;
  const ScoringArtifact a = generate_test_artifact();
  PromptEncoder prompts(tokenizer, a);
  const std::vector<int32_t> query = prompts.query_tokens("q");
  const int64_t shared = static_cast<int64_t>(query.size() + prompts.generate_answer_tokens().size());
  const int64_t per_item = 5 + (5 + kAnswerSlackTokens);  // "k. a\n" + answer budget
  const std::vector<std::string> items = {"a", "b", "c"};
  const GenerationPlan plan = plan_generation(prompts, a, static_cast<int64_t>(query.size()), items, shared + 2 * per_item);
  EXPECT_EQ(plan.cost.requests, 2);
  EXPECT_EQ(plan.cost.prompt_tokens, 2 * shared + 3 * 5) << "the shared part in each request, then every item line";
  EXPECT_EQ(plan.cost.decode_tokens, 3 * (5 + kAnswerSlackTokens));
  // What it then runs: the same prompts; at most the budget decoded (here the model never stops).
  ScriptedSession model(std::vector<int32_t>(1000, 'x' + 16));
  GenerateDecisions out = generate_decisions(model, prompts, a, query, items, shared + 2 * per_item);
  EXPECT_EQ(out.prompt_tokens, plan.cost.prompt_tokens);
  EXPECT_EQ(out.requests, plan.cost.requests);
  EXPECT_EQ(out.generated_tokens, plan.cost.decode_tokens);
}

}  // namespace
}  // namespace sift
