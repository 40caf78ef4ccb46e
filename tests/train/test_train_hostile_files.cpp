// TorchModel::load_from_checkpoint checks config.json against the checkpoint before it
// allocates a parameter: a config whose sizes are within sift's limits but describe a
// 4 TB embedding, or merely twice the file's vocabulary, fails naming the tensor with not
// one byte allocated for a tensor (counted through libtorch's CPU allocator); NaN weights
// are refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <c10/core/CPUAllocator.h>

#include <atomic>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "../io/safetensors_test_files.h"
#include "core/error.h"
#include "io/safetensors_writer.h"
#include "model/checkpoint_layout.h"
#include "model/random_checkpoint.h"
#include "tiny_config.h"
#include "train/torch_model.h"

namespace sift::train {
namespace train_hostile_files {  // named: the trainer's tests are compiled as one unit

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Counts the bytes of every CPU tensor libtorch allocates while it is installed (c10's CPU
// allocator, which every CPU tensor's storage comes from), passing the work to the one it
// replaces.
class CountingCpuAllocator final : public c10::Allocator {
 public:
  CountingCpuAllocator() : base_(c10::GetCPUAllocator()) { c10::SetCPUAllocator(this, kPriority); }
  ~CountingCpuAllocator() override { c10::SetCPUAllocator(base_, kPriority); }
  c10::DataPtr allocate(size_t n) const override {
    bytes_ += static_cast<int64_t>(n);
    return base_->allocate(n);
  }
  c10::DeleterFnPtr raw_deleter() const override { return base_->raw_deleter(); }
  int64_t bytes() const { return bytes_; }

 private:
  static constexpr uint8_t kPriority = 255;
  c10::Allocator* base_;
  mutable std::atomic<int64_t> bytes_{0};
};

TEST(TorchModelLoad, SizesThatDoNotDescribeTheFileFailBeforeAllocating) {
  test::TempDir dir;
  write_random_checkpoint(dir.path(), testing::tiny_config("qwen3"), DType::F32, 1);
  nlohmann::json good;
  std::ifstream(dir / "config.json") >> good;
  struct Case {
    int64_t vocab, hidden;
    const char* config_gives;
  };
  // 2^24 x 2^16: a 2^40-float embedding; then a vocabulary merely twice the file's.
  for (const Case& c : {Case{model_limits::kVocabSize, model_limits::kHiddenSize, "config.json gives [16777216, 65536]"},
                        Case{600, 32, "config.json gives [600, 32]"}}) {
    nlohmann::json config = good;
    config["vocab_size"] = c.vocab;
    config["hidden_size"] = c.hidden;
    test::write_bytes(dir / "config.json", config.dump());
    CountingCpuAllocator tensors;
    EXPECT_THAT([&] { TorchModel::load_from_checkpoint(dir.path()); },
                ThrowsMessage<Error>(AllOf(HasSubstr("\"model.embed_tokens.weight\" has shape [300, 32]"),
                                           HasSubstr(c.config_gives))));
    EXPECT_EQ(tensors.bytes(), 0) << "tensor bytes allocated before the check, vocabulary " << c.vocab;
  }
}

TEST(TorchModelLoad, NonFiniteWeightsAreRefused) {
  test::TempDir dir;
  const ModelConfig config = testing::tiny_config("qwen2");
  write_random_checkpoint(dir.path(), config, DType::F32, 2);
  std::vector<TensorSource> sources;
  std::vector<std::vector<float>> values;
  for (const TensorSpec& spec : checkpoint_layout(config)) {
    int64_t n = 1;
    for (int64_t d : spec.shape) n *= d;
    values.emplace_back(static_cast<size_t>(n), 0.01f);
  }
  const std::vector<TensorSpec> layout = checkpoint_layout(config);
  for (size_t t = 0; t < layout.size(); ++t) {
    if (layout[t].name == "model.layers.1.self_attn.v_proj.bias") values[t][3] = std::numeric_limits<float>::quiet_NaN();
    sources.push_back(TensorSource::from_data(layout[t].name, layout[t].shape, values[t]));
  }
  write_safetensors(dir / "model.safetensors", sources, DType::F32);
  EXPECT_THAT([&] { TorchModel::load_from_checkpoint(dir.path()); },
              ThrowsMessage<Error>(HasSubstr("\"model.layers.1.self_attn.v_proj.bias\" holds nan at element 3")));
}

}  // namespace train_hostile_files
}  // namespace sift::train
