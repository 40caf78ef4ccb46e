// The optimiser loop: deterministic for a seed, resume continues exactly, the schedule and
// the batch plan, and training actually learns a toy task.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "core/error.h"
#include "synthetic_rows.h"
#include "tiny_config.h"
#include "train/batch_plan.h"
#include "train/evaluate.h"
#include "train/lr_schedule.h"
#include "train/train_checkpoint.h"
#include "train/trainer.h"

namespace sift::train {
namespace train_loop {  // named: the trainer's tests are compiled as one unit

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("sift_train_loop_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TrainOptions small_options(bool pack) {
  TrainOptions o;
  o.steps = 12;
  o.batch_size = 8;
  o.lr = 3e-3;
  o.warmup = 0.2;
  o.pack = pack;
  o.seed = 3;
  return o;
}

void expect_same_weights(const TorchModel& a, const TorchModel& b, double atol) {
  for (size_t i = 0; i < a.named_parameters().size(); ++i) {
    const torch::Tensor& x = a.named_parameters()[i].tensor;
    const torch::Tensor& y = b.named_parameters()[i].tensor;
    const double diff = (x - y).abs().max().item<double>();
    EXPECT_LE(diff, atol) << a.named_parameters()[i].name;
  }
}

class TrainerModes : public ::testing::TestWithParam<bool> {};

TEST_P(TrainerModes, TwoRunsWithTheSameSeedGiveIdenticalWeights) {
  const auto rows = testing::synthetic_rows(40, 1);
  TorchModel a = TorchModel::fresh(testing::tiny_config("qwen3"), 3);
  TorchModel b = TorchModel::fresh(testing::tiny_config("qwen3"), 3);
  Trainer(a, rows, small_options(GetParam())).run();
  Trainer(b, rows, small_options(GetParam())).run();
  expect_same_weights(a, b, 0.0);
  // and training moved them
  const TorchModel init = TorchModel::fresh(testing::tiny_config("qwen3"), 3);
  EXPECT_GT((a.named_parameters()[1].tensor - init.named_parameters()[1].tensor).abs().max().item<double>(), 0.0);
}

TEST_P(TrainerModes, ResumeContinuesExactly) {
  const auto rows = testing::synthetic_rows(40, 2);
  TorchModel straight = TorchModel::fresh(testing::tiny_config("qwen2"), 5);
  Trainer(straight, rows, small_options(GetParam())).run();

  const fs::path dir = temp_dir(GetParam() ? "packed" : "single");
  TrainOptions first = small_options(GetParam());
  first.checkpoint_dir = dir / "checkpoint";
  first.save_every = 4;
  {
    TorchModel half = TorchModel::fresh(testing::tiny_config("qwen2"), 5);
    Trainer trainer(half, rows, first);
    trainer.run(6);  // as if killed after step 6: the checkpoint holds step 6 (saved when a run stops)
    EXPECT_EQ(trainer.step(), 6);
  }
  // A different process would start from other weights and RNG state: all of it comes back.
  torch::manual_seed(999);
  TorchModel resumed = TorchModel::fresh(testing::tiny_config("qwen2"), 77);
  TrainOptions second = first;
  second.resume = true;
  Trainer trainer(resumed, rows, second);
  EXPECT_EQ(trainer.step(), 6);
  const TrainSummary summary = trainer.run();
  EXPECT_EQ(summary.steps_done, 6);
  EXPECT_EQ(summary.step, 12);
  expect_same_weights(straight, resumed, 1e-6);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(SingleAndPacked, TrainerModes, ::testing::Bool(),
                         [](const auto& info) { return std::string(info.param ? "packed" : "single"); });

TEST(Trainer, ResumeRefusesAnotherRunSetup) {
  const auto rows = testing::synthetic_rows(20, 3);
  const fs::path dir = temp_dir("refuse");
  TrainOptions o = small_options(false);
  o.checkpoint_dir = dir / "checkpoint";
  TorchModel model = TorchModel::fresh(testing::tiny_config("llama"), 1);
  Trainer(model, rows, o).run(2);
  o.resume = true;
  o.batch_size = 4;
  try {
    Trainer again(model, rows, o);
    FAIL() << "resumed with another batch size";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("batch_size"), std::string::npos) << e.what();
  }
  o.checkpoint_dir = dir / "nothing";
  o.batch_size = 8;
  EXPECT_THROW(Trainer(model, rows, o), Error);
  fs::remove_all(dir);
}

TEST(Trainer, CheckpointSurvivesAKillBetweenTheRenames) {
  const auto rows = testing::synthetic_rows(20, 4);
  const fs::path dir = temp_dir("renames");
  TrainOptions o = small_options(false);
  o.checkpoint_dir = dir / "checkpoint";
  TorchModel model = TorchModel::fresh(testing::tiny_config("qwen3"), 1);
  Trainer(model, rows, o).run(3);
  fs::rename(dir / "checkpoint", dir / "checkpoint.old");  // the state a kill mid-save leaves
  o.resume = true;
  EXPECT_EQ(Trainer(model, rows, o).step(), 3);
  fs::remove_all(dir);
}

class ToyTask : public ::testing::TestWithParam<bool> {};

TEST_P(ToyTask, IsLearned) {
  const auto rows = testing::synthetic_rows(150, 5, GetParam());
  const auto held_out = testing::synthetic_rows(60, 6, GetParam());
  TorchModel model = TorchModel::fresh(testing::tiny_config("qwen3"), 2);
  TrainOptions o = small_options(true);
  o.steps = 0;
  o.epochs = 8;
  o.batch_size = 16;
  const AnswerTokenIds answer{testing::kYesId, testing::kNoId};
  const double before = agreement(model, held_out, answer).rate();
  const TrainSummary summary = Trainer(model, rows, o).run();
  const double after = agreement(model, held_out, answer).rate();
  std::printf("toy task: agreement %.3f -> %.3f, final loss %.4f, %.0f pairs/s\n", before, after, summary.loss_ema,
              summary.pairs_per_second());
  EXPECT_LT(summary.loss_ema, 0.5);
  EXPECT_GT(after, 0.85);
}

INSTANTIATE_TEST_SUITE_P(ItemOnlyAndQueryDependent, ToyTask, ::testing::Bool(),
                         [](const auto& info) { return std::string(info.param ? "needs_query" : "item_only"); });

TEST(LrSchedule, WarmsUpLinearlyThenDecaysByCosine) {
  const LrSchedule s{1.0, 0.1, 100};  // 10 warmup steps
  EXPECT_DOUBLE_EQ(s.at(0), 0.1);
  EXPECT_DOUBLE_EQ(s.at(9), 1.0);
  EXPECT_DOUBLE_EQ(s.at(10), 1.0);
  EXPECT_NEAR(s.at(55), 0.5, 1e-12);  // halfway through the decay
  EXPECT_NEAR(s.at(100), 0.0, 1e-12);
  EXPECT_GT(s.at(99), 0.0);
  const LrSchedule no_warmup{2.0, 0.0, 10};
  EXPECT_DOUBLE_EQ(no_warmup.at(0), 2.0);
}

TEST(BatchPlan, EveryExampleOncePerEpochInBatchesOfAtMostBatchSizeLabels) {
  std::vector<ExampleSize> examples;
  for (int i = 0; i < 500; ++i) examples.push_back({10 + (i * 37) % 200, 1 + i % 7});
  const auto batches = epoch_batches(examples, 16, 9, 0);
  std::multiset<int32_t> seen;
  int64_t padded = 0, real = 0;
  for (const auto& b : batches) {
    int64_t labels = 0, longest = 0;
    for (int32_t e : b) {
      seen.insert(e);
      labels += examples[e].n_labels;
      longest = std::max<int64_t>(longest, examples[e].n_tokens);
      real += examples[e].n_tokens;
    }
    padded += longest * static_cast<int64_t>(b.size());
    EXPECT_TRUE(labels <= 16 || b.size() == 1);
  }
  EXPECT_EQ(seen.size(), examples.size());
  EXPECT_EQ(std::set<int32_t>(seen.begin(), seen.end()).size(), examples.size());
  EXPECT_LT(double(padded) / double(real), 1.15) << "length bucketing leaves little padding";
  EXPECT_EQ(epoch_batches(examples, 16, 9, 0), batches);
  EXPECT_NE(epoch_batches(examples, 16, 9, 1), batches);
  EXPECT_NE(epoch_batches(examples, 16, 10, 0), batches);
}

TEST(BatchPlan, StepsCutAndExtendEpochs) {
  std::vector<ExampleSize> examples(40, {10, 1});
  EXPECT_EQ(run_batches(examples, 8, 1, 2, 0).size(), 10u);
  EXPECT_EQ(run_batches(examples, 8, 1, 0, 13).size(), 13u);
  EXPECT_EQ(run_batches(examples, 8, 1, 2, 7).size(), 7u);
  EXPECT_THROW(run_batches(examples, 8, 1, 0, 0), Error);
}

}  // namespace train_loop
}  // namespace sift::train
