// `sift train --objective generate` (train/generate_examples.h): the training sequence is the
// prompt packed generation prefills followed by the answer list, the loss reads exactly the
// answer-list tokens, the plan matches --pack step for step, a checkpoint of one objective
// does not resume the other, and a tiny model trained until it overfits writes answer lists
// that `generate` mode decodes and parses back to the labels it was trained on.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "core/error.h"
#include "model/model.h"
#include "model/session.h"
#include "scoring/artifact.h"
#include "scoring/generate_answers.h"
#include "scoring/generate_mode.h"
#include "scoring/prompt.h"
#include "train_run_fixture.h"
#include "train/batch_plan.h"
#include "train/default_artifact.h"
#include "train/evaluate.h"
#include "train/example_set.h"
#include "train/generate_examples.h"
#include "train/train_run.h"

namespace sift::train {
namespace train_generate {  // named: the trainer's tests are compiled as one unit

namespace fs = std::filesystem;

// A real session that also keeps the ids of every call (the first call of a request is its
// prefill).
class RecordingSession : public Session {
 public:
  explicit RecordingSession(const Model& model) : Session(model, 1) {}
  LogitsView forward(const ForwardRequest& request) override {
    calls.emplace_back(request.ids.begin(), request.ids.end());
    return Session::forward(request);
  }
  std::vector<std::vector<int32_t>> calls;
};

class TrainGenerate : public testing::TrainRunFixture {
 protected:
  void SetUp() override {
    TrainRunFixture::SetUp();
    tokenizer_ = Tokenizer::load(dir_ / "tokenizer.json");
    artifact_ = default_artifact(*tokenizer_, "test");
    encoder_ = std::make_unique<PromptEncoder>(*tokenizer_, artifact_);
  }

  std::vector<LabeledRow> labeled_rows() const { return read_labeled_rows((dir_ / "train.jsonl").string()).rows; }

  TrainRunOptions options() const {
    TrainRunOptions o = base_options();
    o.objective = Objective::Generate;
    o.quiet = true;
    o.training.steps = 4;
    o.training.batch_size = 12;
    return o;
  }

  std::unique_ptr<Tokenizer> tokenizer_;
  ScoringArtifact artifact_;
  std::unique_ptr<PromptEncoder> encoder_;
};

// ids = prompt ++ answer[0..A-2]; readout rows P-1 .. P+A-2 read answer[0..A-1], the
// answer list format_answer_list writes; no prompt token is a target.
TEST_F(TrainGenerate, TheLossReadsExactlyTheAnswerListTokens) {
  const std::vector<LabeledRow> rows = labeled_rows();
  const GenerateRows encoded = encode_generate_rows(rows, *encoder_, {.max_positions = 4096});
  ASSERT_TRUE(encoded.errors.empty());
  ASSERT_EQ(encoded.rows.size(), rows.size());
  const GenerateRow& row = encoded.rows[0];
  const SequenceLayout s = generate_layout(row);
  const auto P = static_cast<int32_t>(row.prompt.size()), A = static_cast<int32_t>(row.answer.size());
  ASSERT_GT(A, 0);
  ASSERT_EQ(static_cast<int32_t>(s.ids.size()), P + A - 1);
  EXPECT_EQ(std::vector<int32_t>(s.ids.begin(), s.ids.begin() + P), row.prompt);
  EXPECT_EQ(std::vector<int32_t>(s.ids.begin() + P, s.ids.end()), std::vector<int32_t>(row.answer.begin(), row.answer.end() - 1));
  std::vector<int32_t> expected_readout(static_cast<size_t>(A));
  std::iota(expected_readout.begin(), expected_readout.end(), P - 1);
  EXPECT_EQ(s.readout, expected_readout);
  EXPECT_EQ(s.targets, row.answer);
  EXPECT_EQ(tokenizer_->decode(s.targets), format_answer_list(rows[0].labels, artifact_.yes, artifact_.no));
  // One causal run: positions 0.., every token sees every earlier one (as greedy decoding).
  std::vector<int32_t> positions(s.ids.size());
  std::iota(positions.begin(), positions.end(), 0);
  EXPECT_EQ(s.positions, positions);
  ASSERT_EQ(s.segments.size(), 1u);
  EXPECT_EQ(s.segments[0].len, P + A - 1);
  EXPECT_EQ(s.segments[0].context_end, 0);
  // Each decision is the token a label writes: the yes or no id, the other one the flip's.
  const AnswerTokenIds answer = resolve_answer_tokens(*tokenizer_, artifact_, "test");
  for (size_t k = 0; k < row.decisions.size(); ++k) {
    const int32_t written = row.answer[static_cast<size_t>(row.decisions[k].index)];
    EXPECT_EQ(written, row.labels[k] ? answer.yes : answer.no) << k;
    EXPECT_EQ(row.decisions[k].other, row.labels[k] ? answer.no : answer.yes) << k;
  }
}

// A generate example is planned as the same row MIS-packed: the same batches as --pack.
TEST_F(TrainGenerate, PlansTheSameStepsAsPackedLabelTraining) {
  testing::write_skill_rows(dir_ / "varied.jsonl", 200, 5, 7);
  std::vector<LabeledRow> rows = read_labeled_rows((dir_ / "varied.jsonl").string()).rows;
  for (size_t r = 0; r < rows.size(); r += 3) {  // rows of 1..7 candidates
    rows[r].row.items.resize(1 + r % 7);
    rows[r].labels.resize(1 + r % 7);
  }
  const AnswerTokenIds answer = resolve_answer_tokens(*tokenizer_, artifact_, "test");
  const std::vector<EncodedRow> label_rows = encode_rows(rows, *encoder_, answer, {.max_positions = 4096, .pack = true}).rows;
  const std::vector<GenerateRow> generate_rows = encode_generate_rows(rows, *encoder_, {.max_positions = 4096}).rows;
  const ExampleSet packed = label_examples(label_rows, true);
  const ExampleSet generate = generate_examples(generate_rows);
  for (int64_t batch_size : {5, 16, 64}) {
    const auto packed_plan = run_batches(packed.sizes, batch_size, 3, 2, 0);
    const auto generate_plan = run_batches(generate.sizes, batch_size, 3, 2, 0);
    EXPECT_GT(packed_plan.size(), 2u);
    EXPECT_EQ(generate_plan.size(), packed_plan.size()) << batch_size;
    EXPECT_EQ(generate_plan, packed_plan) << batch_size;
  }
}

TEST_F(TrainGenerate, RowsTooLongAreLeftOutWithTheirReason) {
  std::vector<LabeledRow> rows = labeled_rows();
  const GenerateRow first = encode_generate_rows({rows[0]}, *encoder_, {.max_positions = 4096}).rows.at(0);
  const auto length = static_cast<int64_t>(first.prompt.size() + first.answer.size());
  GenerateRows fits = encode_generate_rows({rows[0]}, *encoder_, {.max_positions = length, .max_sequence_tokens = length});
  EXPECT_EQ(fits.rows.size(), 1u);
  GenerateRows by_positions = encode_generate_rows({rows[0]}, *encoder_, {.max_positions = length - 1});
  ASSERT_EQ(by_positions.errors.size(), 1u);
  EXPECT_NE(by_positions.errors[0].message.find("positions"), std::string::npos) << by_positions.errors[0].message;
  GenerateRows by_cap = encode_generate_rows({rows[0]}, *encoder_, {.max_positions = 4096, .max_sequence_tokens = length - 1});
  ASSERT_EQ(by_cap.errors.size(), 1u);
  EXPECT_NE(by_cap.errors[0].message.find("--max-sequence-tokens"), std::string::npos) << by_cap.errors[0].message;
  EXPECT_EQ(by_cap.errors[0].line, 1);

  // Through the run: a row longer than every other is left out and counted, the others train.
  int64_t longest = 0;
  for (const GenerateRow& g : encode_generate_rows(rows, *encoder_, {.max_positions = 4096}).rows)
    longest = std::max<int64_t>(longest, static_cast<int64_t>(g.prompt.size() + g.answer.size()));
  TrainRunOptions o = options();
  o.max_sequence_tokens = longest;
  std::ifstream in(o.train);
  std::string line, all;
  while (std::getline(in, line)) all += line + "\n";
  std::ofstream(dir_ / "long.jsonl") << all
                                     << R"({"query": "Skills: Python", "items": ["Python", "Java", "Spark", "Excel", "Welding", "Kubernetes"], "labels": [1, 0, 0, 0, 0, 0]})"
                                     << "\n";
  o.train = dir_ / "long.jsonl";
  const TrainRunResult result = run_training(o);
  EXPECT_EQ(result.rows_left_out, 1);
}

TEST_F(TrainGenerate, PackIsAnErrorAndCheckpointsDoNotResumeAcrossObjectives) {
  TrainRunOptions o = options();
  o.training.pack = true;
  const std::string pack = error_of(o);
  EXPECT_NE(pack.find("--pack"), std::string::npos) << pack;
  EXPECT_NE(pack.find("--objective generate"), std::string::npos) << pack;

  // A generate checkpoint does not resume as label training, nor a label one as generate.
  // Rows of one candidate: a row is one example in both objectives (without --pack), so only
  // the objective tells the runs apart.
  testing::write_skill_rows(dir_ / "single.jsonl", 10, 3, 1);
  o = options();
  o.train = dir_ / "single.jsonl";
  o.training.steps = 2;
  o.training.batch_size = 2;
  run_training(o);
  TrainRunOptions label = o;
  label.objective = Objective::Label;
  label.training.resume = true;
  const std::string from_generate = error_of(label);
  EXPECT_NE(from_generate.find("cannot resume: the checkpoint was made with objective = \"generate\""),
            std::string::npos)
      << from_generate;

  fs::remove_all(o.out);
  label.training.resume = false;
  run_training(label);
  TrainRunOptions generate = o;
  generate.training.resume = true;
  const std::string from_label = error_of(generate);
  EXPECT_NE(from_label.find("cannot resume: the checkpoint was made with objective = nothing"), std::string::npos)
      << from_label;
  // The same objective resumes.
  label.training.resume = true;
  EXPECT_EQ(error_of(label), "(no error)");
}

// Teacher-forced agreement counts an item only when greedy decoding would write its whole part
// of the list (newline, number, separator, answer): a fresh model's argmax is almost never the
// reference token, so it agrees on no item, where comparing the two answer tokens alone would
// give it about half.
TEST_F(TrainGenerate, TeacherForcedAgreementCountsOnlyWholeRightLines) {
  const std::vector<GenerateRow> rows = encode_generate_rows(labeled_rows(), *encoder_, {.max_positions = 4096}).rows;
  const TorchModel fresh = TorchModel::fresh(load_model_config(dir_ / "config.json"), 3);
  const Agreement a = teacher_forced_agreement(fresh, rows);
  EXPECT_EQ(a.n_pairs, 180);
  EXPECT_LE(a.rate(), 0.02);
}

// Training and decoding agree on the format: a tiny model overfit on a few rows writes,
// under greedy decoding of `generate` mode, answer lists that parse back to every label, from
// the very prompt it was trained on.
TEST_F(TrainGenerate, AnOverfitModelDecodesTheLabelsItWasTrainedOn) {
  testing::write_skill_rows(dir_ / "few.jsonl", 4, 11);
  TrainRunOptions o = options();
  o.train = dir_ / "few.jsonl";
  o.validation = dir_ / "few.jsonl";
  o.training.steps = 200;
  o.training.batch_size = 12;  // the 4 rows (12 pairs) in every step
  o.training.lr = 1e-2;
  o.training.warmup = 0.02;
  const TrainRunResult result = run_training(o);
  ASSERT_TRUE(result.validation.has_value());
  EXPECT_EQ(result.validation->n_pairs, 12);
  EXPECT_EQ(result.validation->n_agree, 12);  // teacher-forced

  const ScoringArtifact artifact = load_scoring_artifact(o.out / "sift.json");
  EXPECT_EQ(artifact.version, "trained-generate-seed1-step200");
  const auto model = Model::load(o.out);
  const auto tokenizer = Tokenizer::load(o.out / "tokenizer.json");
  const PromptEncoder encoder(*tokenizer, artifact);
  const std::vector<LabeledRow> rows = read_labeled_rows(o.train.string()).rows;
  const std::vector<GenerateRow> trained_on = encode_generate_rows(rows, encoder, {.max_positions = 4096}).rows;
  ASSERT_EQ(trained_on.size(), rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    RecordingSession session(*model);
    const std::vector<std::string> items(rows[r].row.items.begin(), rows[r].row.items.end());
    const GenerateDecisions out =
        generate_decisions(session, encoder, artifact, encoder.query_tokens(rows[r].row.query), items, 1 << 20);
    ASSERT_EQ(out.requests, 1);
    const SequenceLayout trained = generate_layout(trained_on[r]);
    EXPECT_EQ(session.calls.at(0), std::vector<int32_t>(trained.ids.begin(), trained.ids.begin() + out.prompt_tokens))
        << "row " << r << ": the prefill is not the trained prompt";
    EXPECT_EQ(out.prompt_tokens, static_cast<int64_t>(trained_on[r].prompt.size()));
    ASSERT_EQ(out.decisions.size(), rows[r].labels.size());
    for (size_t i = 0; i < out.decisions.size(); ++i) {
      ASSERT_TRUE(out.decisions[i].has_value()) << "row " << r << " item " << i << ": " << out.answer_texts[0];
      EXPECT_EQ(*out.decisions[i], rows[r].labels[i]) << "row " << r << " item " << i << ": " << out.answer_texts[0];
    }
  }
}

}  // namespace train_generate
}  // namespace sift::train
