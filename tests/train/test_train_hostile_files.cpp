// TorchModel::load_from_checkpoint checks config.json against the checkpoint before it
// allocates a parameter: a config whose sizes are within sift's limits but describe a
// 4 TB embedding fails at once naming the tensor, and NaN weights are refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
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
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(TorchModelLoad, SizesThatDoNotDescribeTheFileFailBeforeAllocating) {
  test::TempDir dir;
  write_random_checkpoint(dir.path(), testing::tiny_config("qwen3"), DType::F32, 1);
  nlohmann::json config;
  std::ifstream(dir / "config.json") >> config;
  config["vocab_size"] = model_limits::kVocabSize;  // x hidden 2^16: a 2^40-float embedding
  config["hidden_size"] = model_limits::kHiddenSize;
  test::write_bytes(dir / "config.json", config.dump());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT([&] { TorchModel::load_from_checkpoint(dir.path()); },
              ThrowsMessage<Error>(AllOf(HasSubstr("\"model.embed_tokens.weight\" has shape [300, 32]"),
                                         HasSubstr("config.json gives [16777216, 65536]"))));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);  // runaway guard
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

}  // namespace
}  // namespace sift::train
