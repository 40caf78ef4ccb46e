// Early stopping (train/early_stopping.h): the run stops after `patience` evaluations without
// an improvement of more than min_delta, keeps the best evaluation's weights, stops at the same
// step with the same bits when run again or resumed; through `sift train`, the labeler written
// is the best one and its validation agreement is read at the agreement-maximising threshold.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "synthetic_rows.h"
#include "tiny_config.h"
#include "train/evaluate.h"
#include "train/trainer.h"
#include "train_run_fixture.h"

namespace sift::train {
namespace train_early_stopping {  // named: the trainer's tests are compiled as one unit

namespace fs = std::filesystem;

TrainOptions options_with_stopping(int64_t patience, int64_t eval_every, double min_delta) {
  TrainOptions o;
  o.steps = 30;  // the cap
  o.batch_size = 8;
  o.lr = 3e-3;
  o.seed = 4;
  o.pack = true;
  o.early_stopping = {patience, eval_every, min_delta};
  return o;
}

// A validator that returns the given values in turn (and counts its calls).
Validator scripted(std::vector<double> values, int* calls) {
  return [values = std::move(values), calls] { return values.at(static_cast<size_t>((*calls)++)); };
}

bool same_weights(const std::vector<torch::Tensor>& a, const TorchModel& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (!torch::equal(a[i], b.named_parameters()[i].tensor)) return false;
  return a.size() == b.named_parameters().size();
}

TEST(EarlyStopping, StopsAfterPatienceEvaluationsWithoutAnImprovementOfMinDelta) {
  const auto rows = testing::synthetic_rows(40, 1);
  TorchModel model = TorchModel::fresh(testing::tiny_config("qwen3"), 3);
  int calls = 0;
  // Evaluations at steps 2, 4, 6, 8, 10: 0.6 at step 4 is the best; 0.605 is not more than
  // 0.6 + min_delta, so steps 6, 8 and 10 are three evaluations without an improvement.
  Trainer trainer(model, rows, options_with_stopping(3, 2, 0.01), scripted({0.5, 0.6, 0.6, 0.605, 0.59}, &calls));
  const TrainSummary summary = trainer.run();
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(summary.step, 10);
  EXPECT_TRUE(summary.stopped_early);
  const EarlyStopping& stopping = trainer.early_stopping();
  EXPECT_EQ(stopping.best_step(), 4);
  EXPECT_EQ(stopping.best_value(), 0.6);
  ASSERT_EQ(stopping.history().size(), 5u);
  EXPECT_EQ(stopping.history()[3].step, 8);
  EXPECT_EQ(stopping.history()[3].value, 0.605);

  // The kept weights are those of step 4: a run of the same plan stopped there by hand.
  TorchModel at_best = TorchModel::fresh(testing::tiny_config("qwen3"), 3);
  TrainOptions plain = options_with_stopping(0, 0, 0);
  Trainer(at_best, rows, plain).run(4);
  EXPECT_FALSE(same_weights(stopping.best_weights(), model)) << "training went on after the best step";
  trainer.restore_best();
  for (size_t i = 0; i < model.named_parameters().size(); ++i)
    EXPECT_TRUE(torch::equal(model.named_parameters()[i].tensor, at_best.named_parameters()[i].tensor))
        << model.named_parameters()[i].name;
}

TEST(EarlyStopping, ImprovingRunsToTheCapAndEvaluatesTheLastStep) {
  const auto rows = testing::synthetic_rows(40, 1);
  TorchModel model = TorchModel::fresh(testing::tiny_config("qwen3"), 3);
  TrainOptions o = options_with_stopping(2, 7, 0.0);
  o.steps = 16;  // evaluations at 7, 14 and the last step, 16
  int calls = 0;
  Trainer trainer(model, rows, o, scripted({0.1, 0.2, 0.3}, &calls));
  const TrainSummary summary = trainer.run();
  EXPECT_EQ(summary.step, 16);
  EXPECT_FALSE(summary.stopped_early);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(trainer.early_stopping().best_step(), 16);
  EXPECT_TRUE(same_weights(trainer.early_stopping().best_weights(), model));
}

// A real validator (agreement at the agreement-maximising threshold on held-out rows): the
// same run twice gives the same evaluations, stop and weights; killed and resumed, too.
TEST(EarlyStopping, DeterministicAndResumable) {
  const auto rows = testing::synthetic_rows(60, 2);
  const auto held_out = testing::synthetic_rows(30, 3);
  const AnswerTokenIds answer{testing::kYesId, testing::kNoId};
  const fs::path dir = fs::temp_directory_path() / ("sift_early_stopping_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto train = [&](TrainOptions o, int64_t stop_step, TorchModel& model) {
    Trainer trainer(model, rows, o, [&] { return best_threshold_agreement(model, held_out, answer).agreement; });
    trainer.run(stop_step);
    trainer.restore_best();
    return std::make_pair(trainer.early_stopping().history(), trainer.step());
  };
  TrainOptions o = options_with_stopping(2, 3, 0.02);
  o.steps = 60;
  TorchModel a = TorchModel::fresh(testing::tiny_config("qwen3"), 5);
  TorchModel b = TorchModel::fresh(testing::tiny_config("qwen3"), 5);
  const auto [history_a, stop_a] = train(o, -1, a);
  const auto [history_b, stop_b] = train(o, -1, b);
  std::printf("stopped at step %lld of 60 after %zu evaluations\n", static_cast<long long>(stop_a), history_a.size());
  ASSERT_FALSE(history_a.empty());
  EXPECT_EQ(stop_a, stop_b);
  ASSERT_EQ(history_a.size(), history_b.size());
  for (size_t i = 0; i < history_a.size(); ++i) EXPECT_EQ(history_a[i].value, history_b[i].value);
  for (size_t i = 0; i < a.named_parameters().size(); ++i)
    EXPECT_TRUE(torch::equal(a.named_parameters()[i].tensor, b.named_parameters()[i].tensor));

  o.checkpoint_dir = dir / "checkpoint";
  o.save_every = 4;
  TorchModel killed = TorchModel::fresh(testing::tiny_config("qwen3"), 5);
  train(o, std::min<int64_t>(stop_a - 1, 10), killed);  // as if killed: the checkpoint holds that step
  o.resume = true;
  TorchModel resumed = TorchModel::fresh(testing::tiny_config("qwen3"), 9);
  const auto [history_r, stop_r] = train(o, -1, resumed);
  EXPECT_EQ(stop_r, stop_a);
  ASSERT_EQ(history_r.size(), history_a.size());
  for (size_t i = 0; i < history_a.size(); ++i) EXPECT_EQ(history_r[i].value, history_a[i].value);
  for (size_t i = 0; i < a.named_parameters().size(); ++i)
    EXPECT_TRUE(torch::equal(a.named_parameters()[i].tensor, resumed.named_parameters()[i].tensor))
        << a.named_parameters()[i].name;
  fs::remove_all(dir);
}

TEST(EarlyStopping, NeedsAValidatorAndAnInterval) {
  const auto rows = testing::synthetic_rows(10, 1);
  TorchModel model = TorchModel::fresh(testing::tiny_config("qwen3"), 3);
  EXPECT_THROW(Trainer(model, rows, options_with_stopping(2, 5, 0)), Error);
  EXPECT_THROW(Trainer(model, rows, options_with_stopping(2, 0, 0), [] { return 0.0; }), Error);
}

class EarlyStoppingRun : public testing::TrainRunFixture {};

// Through `sift train`: the labeler written is the best evaluation's, its version names that
// step, and its agreement at the agreement-maximising threshold is the best value.
TEST_F(EarlyStoppingRun, WritesTheBestLabeler) {
  testing::write_skill_rows(dir_ / "val.jsonl", 30, 2);
  TrainRunOptions o = base_options();
  o.validation = dir_ / "val.jsonl";
  o.training.steps = 60;
  o.training.batch_size = 8;
  o.training.pack = true;
  o.training.early_stopping = {2, 5, 0.0};
  const TrainRunResult result = run_training(o);
  ASSERT_TRUE(result.best.has_value());
  ASSERT_FALSE(result.evaluations.empty());
  EXPECT_EQ(result.weights_step, result.best->step);
  EXPECT_EQ(result.evaluations.back().step, result.summary.step);
  EXPECT_EQ(load_scoring_artifact(o.out / "sift.json").version, fmt::format("trained-seed1-step{}", result.best->step));

  const TorchModel written = TorchModel::load_from_checkpoint(o.out);
  const auto tokenizer = Tokenizer::load(o.out / "tokenizer.json");
  const ScoringArtifact artifact = load_scoring_artifact(o.out / "sift.json");
  const PromptEncoder encoder(*tokenizer, artifact);
  const AnswerTokenIds answer = resolve_answer_tokens(*tokenizer, artifact, "test");
  const EncodedRows validation = encode_rows(read_labeled_rows((dir_ / "val.jsonl").string(), 1 << 20).rows, encoder,
                                             answer, {4096, 4096, false});
  EXPECT_EQ(best_threshold_agreement(written, validation.rows, answer).agreement, result.best->value);

  o.validation.clear();
  EXPECT_NE(error_of(o).find("--early-stopping needs --validation"), std::string::npos) << error_of(o);
}

}  // namespace train_early_stopping
}  // namespace sift::train
