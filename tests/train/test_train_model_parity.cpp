// The libtorch model (train/torch_model.h) against the engine (sift::Model) on the golden
// checkpoints of every architecture and dtype: the same logits within
// 1e-4 * max(1, max |logit|), for the causal, long (RoPE far out, llama3 scaling) and
// multi-item probes, alone and padded together into one batch.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "../model/golden_checkpoints.h"
#include "model/model.h"
#include "train/sequence_layout.h"
#include "train/torch_model.h"

namespace sift::train {
namespace train_model_parity {  // named: the trainer's tests are compiled as one unit

struct Probe {
  std::string name;
  SequenceLayout layout;
};

std::vector<Probe> golden_probes(const nlohmann::json& golden) {
  std::vector<Probe> probes;
  for (const auto& p : golden["probes"]) {
    Probe probe{p["name"].get<std::string>(), {}};
    probe.layout.ids = p["ids"].get<std::vector<int32_t>>();
    probe.layout.positions = p["positions"].get<std::vector<int32_t>>();
    probe.layout.readout = p["logit_rows"].get<std::vector<int32_t>>();
    for (const auto& s : p["segments"])
      probe.layout.segments.push_back({s[0].get<int32_t>(), s[1].get<int32_t>(), 0, s[2].get<int32_t>()});  // [start, len, context_len]
    probe.layout.targets.assign(probe.layout.readout.size(), 0);
    probes.push_back(std::move(probe));
  }
  return probes;
}

std::vector<float> engine_logits(const Model& model, const SequenceLayout& s) {
  ForwardRequest request{s.ids, s.positions, s.segments, s.readout, {}};
  return model.forward(request).logits;
}

// Logits (n, V) of every sequence's readout rows, the sequences collated into one batch.
torch::Tensor torch_logits(const TorchModel& model, const std::vector<const SequenceLayout*>& sequences) {
  torch::NoGradGuard no_grad;
  const Batch batch = collate(sequences);
  return model.logits(model.hidden_at(batch.ids, batch.positions, batch.mask, batch.rows));
}

double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, std::abs(double(x)));
  return m;
}

double max_diff(const std::vector<float>& expected, const torch::Tensor& actual) {
  EXPECT_EQ(static_cast<int64_t>(expected.size()), actual.numel());
  const torch::Tensor a = actual.contiguous();
  const float* data = a.data_ptr<float>();
  double m = 0;
  for (size_t i = 0; i < expected.size(); ++i) m = std::max(m, std::abs(double(expected[i]) - double(data[i])));
  return m;
}

class TorchEngineParity : public ::testing::TestWithParam<std::string> {};

TEST(TorchEngineParity, GoldenCheckpointsArePresent) {
  EXPECT_EQ(sift::testing::golden_cases_on_disk(), sift::testing::golden_cases())
      << "under " << sift::testing::golden_root();
}

TEST_P(TorchEngineParity, SameLogitsAsTheEngine) {
  const std::filesystem::path dir = sift::testing::golden_root() / GetParam();
  const auto engine = Model::load(dir);
  const TorchModel model = TorchModel::load_from_checkpoint(dir);
  const std::vector<Probe> probes = golden_probes(sift::testing::read_golden(GetParam()));
  ASSERT_EQ(probes.size(), 3u);

  std::vector<std::vector<float>> expected;
  std::vector<const SequenceLayout*> all;
  for (const Probe& probe : probes) {
    expected.push_back(engine_logits(*engine, probe.layout));
    all.push_back(&probe.layout);
    const double tolerance = 1e-4 * std::max(1.0, max_abs(expected.back()));
    const torch::Tensor alone = torch_logits(model, {&probe.layout});
    ASSERT_EQ(alone.size(1), engine->config().vocab_size);
    EXPECT_LE(max_diff(expected.back(), alone), tolerance) << GetParam() << " probe " << probe.name;
  }
  // All probes right-padded into one batch: padding changes nothing.
  const torch::Tensor batched = torch_logits(model, all);
  int64_t row = 0;
  for (size_t p = 0; p < probes.size(); ++p) {
    const auto n = static_cast<int64_t>(probes[p].layout.readout.size());
    const double tolerance = 1e-4 * std::max(1.0, max_abs(expected[p]));
    EXPECT_LE(max_diff(expected[p], batched.narrow(0, row, n)), tolerance) << GetParam() << " batched " << probes[p].name;
    row += n;
  }
}

// Every token read out (as packed-generation training reads its answer list): more rows than
// one per kRowsOnlyTokensPerRow tokens, so the last layer runs whole; still the engine's logits.
TEST_P(TorchEngineParity, EveryTokenReadOutGivesTheEnginesLogits) {
  const std::filesystem::path dir = sift::testing::golden_root() / GetParam();
  const auto engine = Model::load(dir);
  const TorchModel model = TorchModel::load_from_checkpoint(dir);
  SequenceLayout causal = golden_probes(sift::testing::read_golden(GetParam()))[0].layout;
  causal.readout.resize(causal.ids.size());
  std::iota(causal.readout.begin(), causal.readout.end(), 0);
  causal.targets.assign(causal.readout.size(), 0);
  ASSERT_GT(static_cast<int64_t>(causal.readout.size()) * kRowsOnlyTokensPerRow, static_cast<int64_t>(causal.ids.size()));
  const std::vector<float> expected = engine_logits(*engine, causal);
  const double tolerance = 1e-4 * std::max(1.0, max_abs(expected));
  EXPECT_LE(max_diff(expected, torch_logits(model, {&causal})), tolerance) << GetParam();
}

TEST_P(TorchEngineParity, SomeVocabularyRowsEqualTheFullProjection) {
  const TorchModel model = TorchModel::load_from_checkpoint(sift::testing::golden_root() / GetParam());
  const SequenceLayout causal = golden_probes(sift::testing::read_golden(GetParam()))[0].layout;
  torch::NoGradGuard no_grad;
  const Batch batch = collate({&causal});
  const torch::Tensor hidden = model.hidden_at(batch.ids, batch.positions, batch.mask, batch.rows);
  const torch::Tensor vocab = torch::tensor(std::vector<int64_t>{7, 0, model.config().vocab_size - 1});
  EXPECT_TRUE(torch::allclose(model.logits(hidden, vocab), model.logits(hidden).index_select(1, vocab), 1e-6, 1e-6));
}

INSTANTIATE_TEST_SUITE_P(AllCheckpoints, TorchEngineParity, ::testing::ValuesIn(sift::testing::golden_cases()),
                         [](const auto& info) { return info.param; });

}  // namespace train_model_parity
}  // namespace sift::train
