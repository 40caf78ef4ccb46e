// `sift train` end to end (train/train_run.h): a tiny fresh model trained on a JSONL file
// with the tiny tokenizer is written as a Hugging Face directory that sift::Model loads
// and that computes the same answer logits as the trained libtorch model; resume through
// the run; and clear errors for bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "model/model.h"
#include "scoring/artifact.h"
#include "scoring/prompt.h"
#include "tiny_config.h"
#include "train_run_fixture.h"
#include "train/blas_threads.h"
#include "train/sequence_layout.h"
#include "train/train_run.h"

namespace sift::train {
namespace train_run {  // named: the trainer's tests are compiled as one unit

namespace fs = std::filesystem;

class TrainRun : public testing::TrainRunFixture {
 protected:
  void SetUp() override {
    TrainRunFixture::SetUp();
    testing::write_skill_rows(dir_ / "val.jsonl", 20, 2);
  }

  TrainRunOptions options() const {
    TrainRunOptions o = base_options();
    o.validation = dir_ / "val.jsonl";
    o.training.steps = 10;
    o.training.batch_size = 8;
    o.training.pack = true;
    return o;
  }
};

// --threads reaches the BLAS libtorch multiplies with (OpenBLAS keeps a pool of its own, sized
// to the machine): a run given one thread uses one for its matrix products too.
TEST_F(TrainRun, ThreadsSetTheBlasPool) {
  set_blas_threads(2);
  if (blas_threads() == 0) GTEST_SKIP() << "this BLAS has no thread setting";
  ASSERT_EQ(blas_threads(), 2);
  TrainRunOptions o = options();
  o.threads = 1;
  run_training(o);
  EXPECT_EQ(blas_threads(), 1);
}

TEST_F(TrainRun, WritesALabelerTheEngineLoads) {
  const TrainRunResult result = run_training(options());
  EXPECT_EQ(result.summary.step, 10);
  ASSERT_TRUE(result.validation.has_value());
  EXPECT_EQ(result.validation->n_pairs, 60);
  for (const char* file : {"model.safetensors", "config.json", "tokenizer.json", "sift.json", "checkpoint/state.pt"})
    EXPECT_TRUE(fs::exists(dir_ / "out" / file)) << file;

  const ScoringArtifact artifact = load_scoring_artifact(dir_ / "out" / "sift.json");
  EXPECT_EQ(artifact.threshold, 0.5);
  EXPECT_EQ(artifact.version, "trained-seed1-step10");

  // The engine and the trained libtorch model agree on the answer logits of a prompt.
  const auto engine = Model::load(dir_ / "out");
  const TorchModel trained = TorchModel::load_from_checkpoint(dir_ / "out");
  const auto tokenizer = Tokenizer::load(dir_ / "out" / "tokenizer.json");
  const PromptEncoder encoder(*tokenizer, artifact);
  const AnswerTokenIds answer = resolve_answer_tokens(*tokenizer, artifact, "test");
  const SequenceLayout s = single_candidate_layout(encoder.query_tokens("Skills: Python Spark"),
                                                   encoder.item_tokens("Spark"), answer.yes);
  const std::vector<int32_t> vocab = {answer.yes, answer.no};
  const ForwardResult expected = engine->forward({s.ids, s.positions, s.segments, s.readout, vocab});
  torch::NoGradGuard no_grad;
  const Batch batch = collate({&s});
  const torch::Tensor got = trained.logits(trained.hidden_at(batch.ids, batch.positions, batch.mask, batch.rows),
                                           torch::tensor(std::vector<int64_t>{answer.yes, answer.no}));
  EXPECT_NEAR(got[0][0].item<float>(), expected.logits[0], 1e-4);
  EXPECT_NEAR(got[0][1].item<float>(), expected.logits[1], 1e-4);
}

TEST_F(TrainRun, Bf16OutputLoadsAndResumeFinishesTheRun) {
  TrainRunOptions o = options();
  o.training.steps = 10;
  o.training.save_every = 5;
  o.dtype = "bf16";
  run_training(o);
  EXPECT_NO_THROW(Model::load(dir_ / "out"));
  // A resumed run that is already complete trains nothing more and rewrites the same labeler.
  o.training.resume = true;
  const TrainRunResult again = run_training(o);
  EXPECT_EQ(again.summary.steps_done, 0);
  EXPECT_EQ(again.summary.step, 10);
}

// A bad or too long row is left out with its reason; the others train.
TEST_F(TrainRun, RowsThatCannotBeTrainedOnAreLeftOut) {
  TrainRunOptions o = options();
  std::ifstream good_rows(o.train);
  std::string good;
  std::getline(good_rows, good);
  std::ofstream(dir_ / "mixed.jsonl") << good << "\n"
                                      << "{\"query\": \"q\", \"items\": [\"a\"], \"labels\": [1e999]}\n"
                                      << "{\"query\": \"" << std::string(600, 'x') << "\", \"items\": [\"a\"], \"labels\": [1]}\n"
                                      << good << "\n";
  o.train = dir_ / "mixed.jsonl";
  o.validation.clear();
  o.max_sequence_tokens = 300;
  const TrainRunResult result = run_training(o);
  EXPECT_EQ(result.rows_left_out, 2);
  EXPECT_EQ(result.summary.step, 10);
}

// --lr 1e30 diverges: the run stops with an error before the weights go non-finite, and no
// labeler is written.
TEST_F(TrainRun, DivergenceStopsTheRunAndKeepsTheLastGoodCheckpoint) {
  TrainRunOptions o = options();
  o.training.lr = 1e30;
  o.training.warmup = 0;
  o.training.save_every = 1;
  const std::string message = error_of(o);
  EXPECT_NE(message.find("training diverged at step"), std::string::npos) << message;
  EXPECT_NE(message.find("--lr 1e+30 may be too high"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "model.safetensors"));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "sift.json"));
}

TEST_F(TrainRun, BadInputIsAClearError) {
  TrainRunOptions o = options();
  o.train = dir_ / "missing.jsonl";
  EXPECT_NE(error_of(o).find("missing.jsonl: no such file"), std::string::npos);

  o = options();
  std::ofstream(dir_ / "bad.jsonl") << "{\"query\": \"q\", \"items\": [\"a\", \"b\"], \"labels\": [1]}\n";
  o.train = dir_ / "bad.jsonl";
  EXPECT_NE(error_of(o).find("bad.jsonl: none of its 1 rows could be read; line 1: field \"labels\" has 1 labels but "
                             "the row has 2 items"),
            std::string::npos)
      << error_of(o);

  o = options();
  o.init_model = dir_;
  EXPECT_NE(error_of(o).find("not both"), std::string::npos);

  o = options();  // a labeler written over the model it starts from would replace what it reads
  run_training(o);
  o.init_model = o.out;
  o.config.clear();
  o.tokenizer.clear();
  EXPECT_NE(error_of(o).find("the output is the same file as --init-model's file"), std::string::npos) << error_of(o);

  o = options();
  o.tokenizer.clear();
  EXPECT_NE(error_of(o).find("--tokenizer"), std::string::npos);

  o = options();
  std::ofstream(dir_ / "small.json")
      << model_config_to_json(testing::tiny_config("qwen3", 100)).dump();
  o.config = dir_ / "small.json";
  EXPECT_NE(error_of(o).find("vocab_size is 100"), std::string::npos) << error_of(o);

  o = options();
  o.training.resume = true;
  fs::remove_all(o.out);  // the checks above may have trained into it
  EXPECT_NE(error_of(o).find("no training checkpoint"), std::string::npos) << error_of(o);
}

}  // namespace train_run
}  // namespace sift::train
