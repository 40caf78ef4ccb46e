// MIS-packed training equals single-candidate training: for the same labeled pairs, one
// packed sequence per row ([q; c1; ...; cN], isolation mask, reused positions) gives the
// same label-only loss and the same gradient of every parameter as one [q; ci] sequence per
// pair, on tiny Qwen3 / Qwen2 / Llama models; and it needs far fewer tokens.
#include <gtest/gtest.h>

#include <random>

#include "tiny_config.h"
#include "train/loss.h"
#include "train/sequence_layout.h"
#include "train/torch_model.h"

namespace sift::train {
namespace train_pack {  // named: the trainer's tests are compiled as one unit

struct Row {
  std::vector<int32_t> query;
  std::vector<std::vector<int32_t>> items;
  std::vector<int32_t> targets;
};

std::vector<Row> random_rows(int64_t vocab, uint32_t seed) {
  std::mt19937 rng(seed);
  auto ids = [&](int n) {
    std::vector<int32_t> v;
    for (int i = 0; i < n; ++i) v.push_back(static_cast<int32_t>(rng() % vocab));
    return v;
  };
  std::vector<Row> rows;
  for (int r = 0; r < 3; ++r) {
    Row row{ids(30 + 9 * r), {}, {}};
    for (int i = 0; i < 4 + r; ++i) {
      row.items.push_back(ids(1 + static_cast<int>(rng() % 6)));
      row.targets.push_back(rng() % 2 ? 5 : 6);  // "YES" / "NO" ids of this test
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

struct LossAndGrads {
  double loss = 0;
  std::vector<torch::Tensor> grads;
  int64_t n_tokens = 0;
};

LossAndGrads loss_and_grads(const TorchModel& model, const std::vector<SequenceLayout>& layouts) {
  const Batch batch = collate(layouts);
  for (torch::Tensor p : model.parameters()) p.mutable_grad() = torch::Tensor();
  const LossOutput out = label_only_loss(model, batch);
  out.loss.backward();
  LossAndGrads r{out.loss.item<double>(), {}, batch.n_tokens};
  for (const torch::Tensor& p : model.parameters()) r.grads.push_back(p.grad().clone());
  return r;
}

std::vector<SequenceLayout> single_layouts(const std::vector<Row>& rows) {
  std::vector<SequenceLayout> layouts;
  for (const Row& row : rows)
    for (size_t i = 0; i < row.items.size(); ++i)
      layouts.push_back(single_candidate_layout(row.query, row.items[i], row.targets[i]));
  return layouts;
}

std::vector<SequenceLayout> packed_layouts(const std::vector<Row>& rows) {
  std::vector<SequenceLayout> layouts;
  for (const Row& row : rows) layouts.push_back(packed_layout(row.query, row.items, row.targets));
  return layouts;
}

class PackedTraining : public ::testing::TestWithParam<std::string> {};

TEST_P(PackedTraining, SameLossAndGradientsAsSingleCandidates) {
  const TorchModel model = TorchModel::fresh(testing::tiny_config(GetParam()), 7);
  {  // fresh init has all-ones norms and zero biases: perturb them so their gradients matter
    torch::NoGradGuard no_grad;
    for (const NamedParameter& p : model.named_parameters())
      if (!p.decays) p.tensor.add_(torch::randn(p.tensor.sizes()) * 0.1);
  }
  const std::vector<Row> rows = random_rows(model.config().vocab_size, 11);
  const LossAndGrads single = loss_and_grads(model, single_layouts(rows));
  const LossAndGrads packed = loss_and_grads(model, packed_layouts(rows));

  EXPECT_NEAR(single.loss, packed.loss, 1e-5 * std::max(1.0, std::abs(single.loss)));
  ASSERT_EQ(single.grads.size(), packed.grads.size());
  for (size_t i = 0; i < single.grads.size(); ++i) {
    const std::string& name = model.named_parameters()[i].name;
    ASSERT_GT(single.grads[i].abs().max().item<double>(), 0.0) << name << " gets no gradient";
    EXPECT_TRUE(torch::allclose(packed.grads[i], single.grads[i], 1e-4, 1e-6))
        << name << ": max |diff| " << (packed.grads[i] - single.grads[i]).abs().max().item<double>();
  }
  const double ratio = static_cast<double>(packed.n_tokens) / static_cast<double>(single.n_tokens);
  std::printf("tokens: packed %lld, single-candidate %lld (ratio %.3f)\n", static_cast<long long>(packed.n_tokens),
              static_cast<long long>(single.n_tokens), ratio);
  RecordProperty("token_ratio", std::to_string(ratio));
  EXPECT_LT(ratio, 0.4);
}

// The test can fail: a packed sequence whose items also see each other (a plain causal
// mask over [q; c1; ...; cN]) gives a different loss.
TEST_P(PackedTraining, WithoutTheIsolationMaskTheLossDiffers) {
  const TorchModel model = TorchModel::fresh(testing::tiny_config(GetParam()), 7);
  const std::vector<Row> rows = random_rows(model.config().vocab_size, 11);
  std::vector<SequenceLayout> leaky = packed_layouts(rows);
  for (SequenceLayout& l : leaky) l.segments = {{0, static_cast<int32_t>(l.ids.size()), 0, 0}};
  const LossAndGrads single = loss_and_grads(model, single_layouts(rows));
  const LossAndGrads wrong = loss_and_grads(model, leaky);
  EXPECT_GT(std::abs(single.loss - wrong.loss), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Architectures, PackedTraining,
                         ::testing::Values("qwen3", "qwen2", "llama"), [](const auto& info) { return info.param; });

}  // namespace train_pack
}  // namespace sift::train
