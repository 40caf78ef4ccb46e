// `sift train --objective lm` (train/lm_examples.h): documents packed into sequences with an
// EOS between them, every token a target exactly once; the loss falls on a tiny corpus; resume
// continues bitwise; the output starts the label and generate objectives (--init-model).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>

#include "core/error.h"
#include "scoring/artifact.h"
#include "tiny_config.h"
#include "train/evaluate.h"
#include "train/lm_examples.h"
#include "train/trainer.h"
#include "train_run_fixture.h"

namespace sift::train {
namespace train_lm {  // named: the trainer's tests are compiled as one unit

namespace fs = std::filesystem;

class LmTraining : public testing::TrainRunFixture {
 protected:
  // Lines of a tiny language: "<name> likes <thing>." with the thing fixed by the name, so
  // after a few steps the model predicts most of each line.
  void write_corpus(const fs::path& path, int n_lines, uint32_t seed) const {
    static const std::vector<std::pair<std::string, std::string>> pairs = {
        {"ana", "tea"}, {"bob", "jazz"}, {"cy", "maps"}, {"dee", "rain"}, {"eve", "chess"}};
    std::mt19937 rng(seed);
    std::ofstream out(path);
    for (int i = 0; i < n_lines; ++i) {
      const auto& [name, thing] = pairs[rng() % pairs.size()];
      out << nlohmann::json{{"text", name + " likes " + thing + "."}}.dump() << "\n";
    }
  }

  TrainRunOptions lm_options() const {
    TrainRunOptions o = base_options();
    o.objective = Objective::Lm;
    o.train = dir_ / "corpus.jsonl";
    o.validation = dir_ / "corpus_val.jsonl";
    o.max_sequence_tokens = 64;
    o.training.batch_size = 256;  // target tokens per step
    o.training.steps = 40;
    o.training.lr = 1e-2;
    return o;
  }

  void SetUp() override {
    TrainRunFixture::SetUp();
    tokenizer_ = Tokenizer::load(dir_ / "tokenizer.json");
  }

  std::unique_ptr<Tokenizer> tokenizer_;
};

// The tiny tokenizer: bytes are ids 0..255 and "<|endoftext|>" the added token after the merges.
constexpr int32_t kEos = 266;

TEST_F(LmTraining, DocumentsAreSeparatedByEosAndEveryTokenIsPredictedOnce) {
  std::ofstream(dir_ / "docs.jsonl") << R"({"text": "ab"})" << "\n" << R"({"text": "cde"})" << "\n"
                                     << R"({"text": "f"})" << "\n";
  std::ofstream(dir_ / "docs.txt") << "ab\ncde\n\nf\n";  // a text file: a document per line, blank lines skipped
  EXPECT_EQ(document_separator(*tokenizer_, -1), kEos);
  const TokenStream stream = read_token_stream(dir_ / "docs.jsonl", *tokenizer_, kEos, 1 << 20);
  const std::vector<int32_t> expected = {'a', 'b', kEos, 'c', 'd', 'e', kEos, 'f', kEos};
  EXPECT_EQ(stream.ids, expected);
  EXPECT_EQ(stream.n_documents, 3);
  EXPECT_EQ(read_token_stream(dir_ / "docs.txt", *tokenizer_, kEos, 1 << 20).ids, expected);

  // T = 3: sequences S[0..2], S[3..5], S[6..7] (the last one shorter), targets shifted by one.
  const ExampleSet set = lm_examples(stream.ids, 3);
  EXPECT_EQ(set.objective, "lm");
  ASSERT_EQ(set.sizes.size(), 3u);
  const std::vector<std::vector<int32_t>> ids = {{'a', 'b', kEos}, {'c', 'd', 'e'}, {kEos, 'f'}};
  const std::vector<std::vector<int32_t>> targets = {{'b', kEos, 'c'}, {'d', 'e', kEos}, {'f', kEos}};
  std::vector<int32_t> all_targets;
  for (int32_t k = 0; k < 3; ++k) {
    const SequenceLayout s = set.layout(k);
    const auto n = static_cast<int32_t>(ids[k].size());
    EXPECT_EQ(set.sizes[k].n_tokens, n);
    EXPECT_EQ(set.sizes[k].n_labels, n);
    EXPECT_EQ(s.ids, ids[k]) << "sequence " << k;
    EXPECT_EQ(s.targets, targets[k]) << "sequence " << k;
    std::vector<int32_t> positions(n), readout(n);
    std::iota(positions.begin(), positions.end(), 0);
    std::iota(readout.begin(), readout.end(), 0);
    EXPECT_EQ(s.positions, positions);
    EXPECT_EQ(s.readout, readout);
    ASSERT_EQ(s.segments.size(), 1u);  // one causal run: attention crosses the EOS
    EXPECT_EQ(s.segments[0].len, n);
    EXPECT_EQ(s.segments[0].context_end, 0);
    all_targets.insert(all_targets.end(), s.targets.begin(), s.targets.end());
  }
  EXPECT_EQ(all_targets, std::vector<int32_t>(expected.begin() + 1, expected.end()));
  EXPECT_EQ(lm_examples(stream.ids, 8).sizes.size(), 1u);  // n - 1 = 8 targets fit one sequence
  EXPECT_EQ(lm_examples(stream.ids, 100).sizes[0].n_tokens, 8);
}

TEST_F(LmTraining, BadTextIsAClearError) {
  std::ofstream(dir_ / "bad.jsonl") << R"({"text": "ok"})" << "\n" << R"({"text": 7})" << "\n";
  try {
    read_token_stream(dir_ / "bad.jsonl", *tokenizer_, kEos, 1 << 20);
    FAIL() << "a non-string text was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:2: field \"text\" must be a string"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(lm_examples(std::vector<int32_t>{kEos}, 4), Error);  // nothing to predict
  nlohmann::json no_eos = testing::tiny_tokenizer_json();
  no_eos["added_tokens"] = nlohmann::json::array();
  const auto plain = Tokenizer::from_json_string(no_eos.dump(), "no_eos");
  EXPECT_EQ(document_separator(*plain, 7), 7);  // the config's eos_token_id
  try {
    document_separator(*plain, -1);
    FAIL() << "no end-of-document token";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no \"<|endoftext|>\" and config.json no eos_token_id"), std::string::npos)
        << e.what();
  }

  TrainRunOptions o = lm_options();
  write_corpus(o.train, 10, 1);
  write_corpus(o.validation, 10, 2);
  o.training.pack = true;
  EXPECT_NE(error_of(o).find("--pack is for --objective label"), std::string::npos) << error_of(o);
}

TEST_F(LmTraining, LossFallsAndTheBaseStartsBothFineTuningObjectives) {
  TrainRunOptions o = lm_options();
  write_corpus(o.train, 300, 1);
  write_corpus(o.validation, 40, 2);
  const TokenStream validation = read_token_stream(o.validation, *tokenizer_, kEos, 1 << 20);
  const TorchModel fresh = TorchModel::fresh(load_model_config(o.config), o.training.seed);
  const double before = mean_loss(fresh, lm_examples(validation.ids, o.max_sequence_tokens));

  const TrainRunResult result = run_training(o);
  ASSERT_TRUE(result.validation_loss.has_value());
  std::printf("lm: validation loss %.3f -> %.3f in %lld steps\n", before, *result.validation_loss,
              static_cast<long long>(result.summary.step));
  EXPECT_GT(before, 5.0);  // ~ln(267): uniform over the vocabulary
  EXPECT_LT(*result.validation_loss, 0.5 * before);
  EXPECT_EQ(result.summary.step, 40);
  EXPECT_EQ(load_scoring_artifact(o.out / "sift.json").version, "trained-lm-seed1-step40");

  // The base is a Hugging Face directory that both fine-tuning objectives start from.
  for (const Objective objective : {Objective::Label, Objective::Generate}) {
    TrainRunOptions fine = base_options();
    fine.objective = objective;
    fine.init_model = o.out;
    fine.config.clear();
    fine.tokenizer.clear();
    fine.out = dir_ / (objective == Objective::Label ? "label" : "generate");
    fine.training.steps = 2;
    fine.training.batch_size = 8;
    const TrainRunResult r = run_training(fine);
    EXPECT_EQ(r.summary.step, 2);
    EXPECT_TRUE(fs::exists(fine.out / "model.safetensors"));
  }
}

// Killed halfway and resumed, an lm run ends with the same bits as one run straight through.
TEST_F(LmTraining, ResumeContinuesExactly) {
  std::mt19937 rng(4);
  std::vector<int32_t> stream(700);
  for (int32_t& t : stream) t = static_cast<int32_t>(rng() % 200);
  TrainOptions options;
  options.steps = 10;
  options.batch_size = 64;
  options.lr = 3e-3;
  options.seed = 2;
  const ModelConfig config = testing::tiny_config("qwen3");

  TorchModel straight = TorchModel::fresh(config, 2);
  Trainer(straight, lm_examples(stream, 32), options).run();

  options.checkpoint_dir = dir_ / "checkpoint";
  options.save_every = 3;
  {
    TorchModel half = TorchModel::fresh(config, 2);
    Trainer(half, lm_examples(stream, 32), options).run(5);
  }
  torch::manual_seed(999);
  TorchModel resumed = TorchModel::fresh(config, 77);
  options.resume = true;
  Trainer trainer(resumed, lm_examples(stream, 32), options);
  EXPECT_EQ(trainer.step(), 5);
  trainer.run();
  for (size_t i = 0; i < straight.named_parameters().size(); ++i)
    EXPECT_TRUE(torch::equal(straight.named_parameters()[i].tensor, resumed.named_parameters()[i].tensor))
        << straight.named_parameters()[i].name;
}

}  // namespace train_lm
}  // namespace sift::train
