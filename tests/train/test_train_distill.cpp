// Distillation (`sift train --targets scores`): the soft-label loss (loss.h) against a hand
// computation in double, its gradient's sign, its hard-label limit; packed and single-candidate
// layouts give the same soft loss; and the teacher-row reader (teacher_rows.h): what is read,
// what leaves a row out, what refuses the run.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>

#include "tiny_config.h"
#include "train/example_set.h"
#include "train/loss.h"
#include "train/sequence_layout.h"
#include "train/teacher_rows.h"
#include "train/torch_model.h"

namespace sift::train {
namespace train_distill {  // named: the trainer's tests are compiled as one unit

double bce(double d, double t) {  // -t log sigmoid(d) - (1 - t) log sigmoid(-d), in double
  const double s = 1.0 / (1.0 + std::exp(-d));
  return -t * std::log(s) - (1 - t) * std::log(1 - s);
}

TEST(SoftLabelLoss, IsTheMeanBinaryCrossEntropyOnTheLogitDifference) {
  const std::vector<double> d = {-3.0, -0.4, 0.0, 0.7, 2.5, 6.0};
  const std::vector<double> t = {0.1, 0.9, 0.5, 0.3, 1.0, 0.0};
  double expected = 0;
  for (size_t i = 0; i < d.size(); ++i) expected += bce(d[i], t[i]);
  expected /= static_cast<double>(d.size());
  const torch::Tensor loss = soft_label_loss_on_differences(torch::tensor(d, torch::kFloat64), torch::tensor(t, torch::kFloat64));
  EXPECT_NEAR(loss.item<double>(), expected, 1e-12);
}

TEST(SoftLabelLoss, GradientIsScoreMinusTargetOverN) {
  const std::vector<double> d = {-2.0, 0.5, 1.5, 0.0};
  const std::vector<double> t = {0.8, 0.2, 1.0, 0.5};
  const torch::Tensor x = torch::tensor(d, torch::kFloat64).requires_grad_(true);
  soft_label_loss_on_differences(x, torch::tensor(t, torch::kFloat64)).backward();
  const torch::Tensor g = x.grad();
  for (size_t i = 0; i < d.size(); ++i) {
    const double s = 1.0 / (1.0 + std::exp(-d[i]));
    EXPECT_NEAR(g[static_cast<int64_t>(i)].item<double>(), (s - t[i]) / static_cast<double>(d.size()), 1e-12);
  }
  // The sign: the student's score below the teacher's -> gradient descent raises d, and back.
  EXPECT_LT(g[0].item<double>(), 0);  // sigmoid(-2) = 0.12 < 0.8
  EXPECT_GT(g[1].item<double>(), 0);  // sigmoid(0.5) = 0.62 > 0.2
  EXPECT_EQ(g[3].item<double>(), 0);  // sigmoid(0) = t: at its minimum
}

TEST(SoftLabelLoss, HardTargetsGiveTheTwoWayCrossEntropyOfTheLabels) {
  const std::vector<double> d = {-1.2, 0.3, 4.0, -5.0};
  const std::vector<double> labels = {1, 0, 1, 0};
  double expected = 0;  // -log sigmoid(d) for YES, -log sigmoid(-d) for NO
  for (size_t i = 0; i < d.size(); ++i)
    expected += labels[i] == 1 ? std::log1p(std::exp(-d[i])) : std::log1p(std::exp(d[i]));
  expected /= static_cast<double>(d.size());
  EXPECT_NEAR(
      soft_label_loss_on_differences(torch::tensor(d, torch::kFloat64), torch::tensor(labels, torch::kFloat64)).item<double>(),
      expected, 1e-12);
}

TEST(SoftLabelLoss, StaysFiniteForLargeLogitDifferences) {
  const torch::Tensor d = torch::tensor({-200.0f, 200.0f, 90.0f});
  const torch::Tensor t = torch::tensor({1.0f, 0.0f, 0.25f});
  const double loss = soft_label_loss_on_differences(d, t).item<double>();
  EXPECT_TRUE(std::isfinite(loss));
  EXPECT_NEAR(loss, (200.0 + 200.0 + 0.75 * 90.0) / 3, 1e-3);  // softplus(d) - t d
}

// On a tiny model: the soft loss of a batch is the same, and has the same gradients, whether a
// row's items are packed in one sequence or each is its own sequence; and it equals the BCE of
// the model's own answer scores.
TEST(SoftLabelLoss, PackedEqualsSingleCandidateOnAModel) {
  const TorchModel model = TorchModel::fresh(testing::tiny_config("qwen3"), 7);
  std::mt19937 rng(3);
  auto ids = [&](int n) {
    std::vector<int32_t> v;
    for (int i = 0; i < n; ++i) v.push_back(static_cast<int32_t>(10 + rng() % 280));
    return v;
  };
  std::vector<EncodedRow> rows(2);
  for (EncodedRow& row : rows) {
    row.query = ids(12);
    for (int i = 0; i < 3; ++i) {
      row.items.push_back(ids(2 + static_cast<int>(rng() % 4)));
      row.targets.push_back(5);
      row.labels.push_back(1);
      row.soft.push_back(static_cast<float>(rng() % 1000) / 1000.0f);
    }
  }
  const AnswerTokenIds answer{5, 6};
  auto loss_and_grads = [&](bool pack) {
    const ExampleSet set = label_examples(rows, pack, answer);
    std::vector<SequenceLayout> layouts;
    for (int32_t e = 0; e < static_cast<int32_t>(set.sizes.size()); ++e) layouts.push_back(set.layout(e));
    for (torch::Tensor p : model.parameters()) p.mutable_grad() = torch::Tensor();
    const Batch batch = collate(layouts);
    const LossOutput out = soft_label_loss(model, batch, answer.yes, answer.no);
    out.loss.backward();
    std::vector<torch::Tensor> grads;
    for (const torch::Tensor& p : model.parameters()) grads.push_back(p.grad().clone());
    // Against the scores read as scoring reads them.
    const torch::Tensor s = answer_scores(model, batch, answer.yes, answer.no).to(torch::kFloat64);
    const torch::Tensor t = batch.soft_targets.to(torch::kFloat64);
    const double by_hand = (-(t * s.log() + (1 - t) * (1 - s).log())).mean().item<double>();
    EXPECT_NEAR(out.loss.item<double>(), by_hand, 1e-5);
    return std::make_pair(out.loss.item<double>(), grads);
  };
  const auto [single_loss, single_grads] = loss_and_grads(false);
  const auto [packed_loss, packed_grads] = loss_and_grads(true);
  EXPECT_NEAR(single_loss, packed_loss, 1e-5);
  ASSERT_EQ(single_grads.size(), packed_grads.size());
  for (size_t i = 0; i < single_grads.size(); ++i)
    EXPECT_TRUE(torch::allclose(single_grads[i], packed_grads[i], 1e-3, 1e-6)) << "parameter " << i;
}

TEST(Collate, RefusesABatchThatMixesSoftAndHardTargets) {
  SequenceLayout soft = single_candidate_layout({1, 2, 3}, {4, 5}, 5);
  soft.soft_targets = {0.3f};
  const SequenceLayout hard = single_candidate_layout({1, 2, 3}, {4}, 6);
  EXPECT_THROW(collate(std::vector<SequenceLayout>{soft, hard}), Error);
  EXPECT_FLOAT_EQ(collate(std::vector<SequenceLayout>{soft, soft}).soft_targets[1].item<float>(), 0.3f);
}

TEST(TeacherRows, ReadsScoresLabelsAndTheThreshold) {
  const TeacherRow row = parse_teacher_row(
      R"({"id":1,"query":"q","items":["a",{"id":"x","text":"b"},"c"],"scores":[0.2,0.45,0.9],"labels":[0,1,1],)"
      R"("usage":{},"artifact":{"version":"v","threshold":0.44}})");
  EXPECT_EQ(row.scores, (std::vector<float>{0.2f, 0.45f, 0.9f}));
  EXPECT_EQ(row.labeled.labels, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(row.teacher_threshold, 0.44);
  // Without labels: t >= the row's threshold; without a threshold either: t >= 0.5.
  EXPECT_EQ(parse_teacher_row(R"({"query":"q","items":["a","b"],"scores":[0.44,0.3],"artifact":{"threshold":0.44}})")
                .labeled.labels,
            (std::vector<bool>{true, false}));
  const TeacherRow bare = parse_teacher_row(R"({"query":"q","items":["a","b"],"scores":[0.45,0.5]})");
  EXPECT_EQ(bare.labeled.labels, (std::vector<bool>{false, true}));
  EXPECT_FALSE(bare.teacher_threshold);
  // A threshold on calibrated probabilities is not the raw score's.
  EXPECT_FALSE(parse_teacher_row(R"({"query":"q","items":["a"],"scores":[0.4],"labels":[1],)"
                                 R"("artifact":{"threshold":0.3,"threshold_on":"probability"}})")
                   .teacher_threshold);
}

void expect_left_out(const std::string& line, const std::string& words) {
  try {
    parse_teacher_row(line);
    ADD_FAILURE() << "read: " << line;
  } catch (const TeacherScoreError& e) {
    ADD_FAILURE() << "refused, not left out: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

void expect_refused(const std::string& line, const std::string& words) {
  try {
    parse_teacher_row(line);
    ADD_FAILURE() << "read: " << line;
  } catch (const TeacherScoreError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(TeacherRows, LeavesOutErrorLinesNullScoresAndMalformedRows) {
  expect_left_out(R"({"line":3,"id":7,"error":"item 2 is empty"})", "the teacher could not score this row: item 2 is empty");
  expect_left_out(R"({"query":"q","items":["a","b"],"scores":[0.1,null]})", "scores[1] is null");
  expect_left_out(R"({"query":"q","items":["a","b"],"scores":[0.1]})", "has 1 scores but the row has 2 items");
  expect_left_out(R"({"query":"q","items":["a"]})", "missing field \"scores\"");
  expect_left_out(R"({"query":"q","items":["a"],"scores":[0.1)", "invalid JSON");
  // A bare NaN outside the scores is only invalid JSON: the line is left out, as any such line.
  expect_left_out(R"({"query":"q","items":["a"],"scores":[0.1],"note":NaN})", "invalid JSON");
  expect_left_out(R"({"query":"q","items":["a","b"],"scores":[0.1,null],"note":NaN})", "invalid JSON");
}

TEST(TeacherRows, RefusesAScoreThatIsNotAProbabilityNamingTheItem) {
  expect_refused(R"({"query":"q","items":["a","b"],"scores":[0.1,1.5]})", "scores[1] (item 1) is 1.5");
  expect_refused(R"({"query":"q","items":["a","b"],"scores":[-0.2,0.5]})", "scores[0] (item 0) is -0.2");
  expect_refused(R"({"query":"q","items":["a","b"],"scores":[0.2,"0.5"]})", "scores[1] (item 1) is \"0.5\"");
  // Python's json.dumps(float("nan")) writes a bare NaN, which is not JSON: named all the same.
  expect_refused(R"({"query":"q","items":["a","b","c"],"scores":[0.2, 0.3, NaN]})", "scores[2] (item 2) is \"NaN\"");
  expect_refused(R"({"query":"q","items":["a","b"],"scores":[-Infinity,0.3]})", "scores[0] (item 0) is \"-Infinity\"");
}

TEST(TeacherRows, AFileNamesTheLineOfARowLeftOutAndOfARefusal) {
  const std::string path = ::testing::TempDir() + "/teacher_rows.jsonl";
  {
    std::ofstream out(path);
    out << R"({"query":"q","items":["a"],"scores":[0.7],"artifact":{"threshold":0.4}})" << "\n"
        << R"({"line":2,"error":"bad"})" << "\n\n"
        << R"({"query":"q","items":["a"],"scores":[0.2],"artifact":{"threshold":0.4}})" << "\n";
  }
  const TeacherRows read = read_teacher_rows(path);
  ASSERT_EQ(read.rows.size(), 2u);
  EXPECT_EQ(read.rows[1].labeled.line, 4);
  ASSERT_EQ(read.errors.size(), 1u);
  EXPECT_EQ(read.errors[0].line, 2);
  EXPECT_EQ(common_teacher_threshold(read.rows), 0.4);
  {
    std::ofstream out(path, std::ios::app);
    out << R"({"query":"q","items":["a","b"],"scores":[0.2,2]})" << "\n";
  }
  try {
    read_teacher_rows(path);
    ADD_FAILURE() << "a score of 2 was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":5: scores[1] (item 1) is 2"), std::string::npos) << e.what();
  }
}

}  // namespace train_distill
}  // namespace sift::train
