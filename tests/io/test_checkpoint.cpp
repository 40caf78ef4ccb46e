// Checkpoint: the golden checkpoints of tests/golden/make_golden.py (written by an independent
// writer) load with the names and shapes of model/checkpoint_layout.h and the exact stored
// values; sharded directories work; broken directories are Errors naming the problem.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/checkpoint.h"
#include "io/safetensors_writer.h"
#include "model/checkpoint_layout.h"
#include "model/config.h"
#include "model/random_checkpoint.h"
#include "safetensors_test_files.h"

namespace sift {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;
using test::TempDir;

std::filesystem::path golden_dir(const std::string& name) {
  return std::filesystem::path(SIFT_BINARY_DIR) / "golden" / name;
}

// ---- the golden checkpoints ----

class GoldenCheckpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenCheckpoint, HoldsExactlyTheArchitecturesTensors) {
  const auto dir = golden_dir(GetParam());
  ASSERT_TRUE(std::filesystem::exists(dir / "model.safetensors")) << dir << " missing: run the golden_generate test";
  const ModelConfig config = load_model_config(dir / "config.json");
  const Checkpoint checkpoint = Checkpoint::open(dir);
  std::vector<std::string> expected;
  for (const TensorSpec& spec : checkpoint_layout(config)) expected.push_back(spec.name);
  EXPECT_NO_THROW(checkpoint.check_names(expected, ignorable_tensor_names(config)));
  EXPECT_EQ(checkpoint.names().size(), expected.size());
  const DType stored = GetParam().ends_with("_bf16") ? DType::BF16 : GetParam().ends_with("_f16") ? DType::F16 : DType::F32;
  for (const TensorSpec& spec : checkpoint_layout(config)) {
    EXPECT_EQ(checkpoint.info(spec.name).dtype, stored) << spec.name;
    const std::vector<float> values = checkpoint.read_f32(spec.name, spec.shape);
    ASSERT_EQ(static_cast<int64_t>(values.size()), checkpoint.info(spec.name).n_elements());
    for (float v : values) ASSERT_TRUE(std::isfinite(v)) << spec.name;
  }
}

class NarrowGoldenCheckpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(NarrowGoldenCheckpoint, ValuesAreTheF32ValuesRounded) {
  // The generator draws the same F32 weights for every dtype of an architecture and rounds
  // them with torch: BF16 must be exactly our round-to-nearest-even, F16 within half an ulp.
  const std::string name = GetParam();
  const std::string arch = name.substr(0, name.find('_'));
  const Checkpoint narrow = Checkpoint::open(golden_dir(name));
  const Checkpoint wide = Checkpoint::open(golden_dir(arch + "_f32"));
  const ModelConfig config = load_model_config(golden_dir(name) / "config.json");
  for (const TensorSpec& spec : checkpoint_layout(config)) {
    const auto a = narrow.read_f32(spec.name, spec.shape);
    const auto b = wide.read_f32(spec.name, spec.shape);
    for (size_t i = 0; i < a.size(); ++i) {
      if (name.ends_with("_bf16")) {
        ASSERT_EQ(a[i], bf16_to_f32(f32_to_bf16(b[i]))) << spec.name << "[" << i << "]";
      } else {
        ASSERT_LE(std::fabs(a[i] - b[i]), std::ldexp(std::fabs(b[i]), -11) + std::ldexp(1.0f, -25))
            << spec.name << "[" << i << "]";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, GoldenCheckpoint,
                         ::testing::Values("qwen3_f32", "qwen3_bf16", "qwen3_f16", "qwen2_f32", "qwen2_bf16",
                                           "llama_f32", "llama_bf16"));
INSTANTIATE_TEST_SUITE_P(All, NarrowGoldenCheckpoint,
                         ::testing::Values("qwen3_bf16", "qwen3_f16", "qwen2_bf16", "llama_bf16"));

TEST(Golden, MisshapenTensorNamesBothShapes) {
  const Checkpoint checkpoint = Checkpoint::open(golden_dir("qwen2_f32"));
  EXPECT_THAT([&] { checkpoint.read_f32("model.norm.weight", {65}); },
              ThrowsMessage<Error>(AllOf(HasSubstr("tensor \"model.norm.weight\" has shape [64], expected [65]"),
                                         HasSubstr("qwen2_f32"))));
  EXPECT_THAT([&] { checkpoint.read_f32("lm_head.weight", {64, 300}); },
              ThrowsMessage<Error>(HasSubstr("has shape [300, 64], expected [64, 300]")));
}

// ---- layout and random checkpoints ----

TEST(Layout, FollowsTheArchitecture) {
  ModelConfig c = preset_model_config("tiny", architecture_named("qwen2"));
  c.tie_word_embeddings = false;
  auto names = [](const ModelConfig& config) {
    std::vector<std::string> out;
    for (const auto& spec : checkpoint_layout(config)) out.push_back(spec.name);
    return out;
  };
  EXPECT_THAT(names(c), ::testing::Contains("model.layers.1.self_attn.k_proj.bias"));
  EXPECT_THAT(names(c), ::testing::Contains("lm_head.weight"));
  EXPECT_THAT(names(c), Not(::testing::Contains("model.layers.0.self_attn.o_proj.bias")));
  EXPECT_THAT(names(c), Not(::testing::Contains("model.layers.0.self_attn.q_norm.weight")));
  const ModelConfig q3 = preset_model_config("tiny", architecture_named("qwen3"));
  EXPECT_THAT(names(q3), ::testing::Contains("model.layers.0.self_attn.q_norm.weight"));
  EXPECT_THAT(names(q3), Not(::testing::Contains("lm_head.weight")));
  EXPECT_EQ(checkpoint_layout(q3).size(), 1u + 2u * 11u + 1u);
}

TEST(RandomCheckpoint, WritesALoadableDeterministicCheckpoint) {
  TempDir dir;
  ModelConfig c = preset_model_config("tiny", architecture_named("llama"));
  c.vocab_size = 500;
  c.tie_word_embeddings = false;
  c.rope_scaling = {32.0, 1.0, 4.0, 8192};
  write_random_checkpoint(dir / "a", c, DType::BF16, 7);
  write_random_checkpoint(dir / "b", c, DType::BF16, 7);
  write_random_checkpoint(dir / "c", c, DType::BF16, 8);
  const ModelConfig loaded = load_model_config(dir / "a" / "config.json");
  EXPECT_EQ(loaded.architecture, &architecture_named("llama"));
  EXPECT_EQ(loaded.rope_scaling.factor, 32.0);
  EXPECT_FALSE(loaded.tie_word_embeddings);
  const Checkpoint a = Checkpoint::open(dir / "a"), b = Checkpoint::open(dir / "b"), other = Checkpoint::open(dir / "c");
  std::vector<std::string> expected;
  for (const auto& spec : checkpoint_layout(loaded)) expected.push_back(spec.name);
  EXPECT_NO_THROW(a.check_names(expected));
  EXPECT_EQ(a.info("lm_head.weight").dtype, DType::BF16);
  const auto norm = a.read_f32("model.norm.weight", {64});
  const auto embed = a.read_f32("model.embed_tokens.weight", {500, 64});
  EXPECT_EQ(embed, b.read_f32("model.embed_tokens.weight", {500, 64}));
  EXPECT_NE(embed, other.read_f32("model.embed_tokens.weight", {500, 64}));
  // Statistics: embedding std 2 / sqrt(64) = 0.25, norms around 1.
  double sum = 0, sum_sq = 0;
  for (float v : embed) sum += v, sum_sq += double(v) * v;
  const double mean = sum / embed.size(), std = std::sqrt(sum_sq / embed.size() - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(std, 0.25, 0.01);
  for (float v : norm) EXPECT_NEAR(v, 1.0, 0.6);
}

TEST(RandomCheckpoint, RejectsAnInvalidShape) {
  TempDir dir;
  ModelConfig c = preset_model_config("tiny", architecture_named("qwen3"));
  c.n_kv_heads = 3;  // 4 heads are not a multiple of 3
  EXPECT_THAT([&] { write_random_checkpoint(dir / "x", c, DType::F32, 0); },
              ThrowsMessage<Error>(HasSubstr("num_key_value_heads")));
  EXPECT_THROW(preset_model_config("huge", architecture_named("qwen3")), Error);
}

// ---- directories, shards and broken checkpoints ----

// Writes DIR/<file> holding the given tensors (each a vector of floats, shape {n}).
void write_file(const std::filesystem::path& path, const std::vector<std::pair<std::string, std::vector<float>>>& tensors) {
  std::vector<TensorSource> sources;
  for (const auto& [name, values] : tensors)
    sources.push_back(TensorSource::from_data(name, {static_cast<int64_t>(values.size())}, values));
  write_safetensors(path, sources, DType::F32);
}

void write_index(const std::filesystem::path& dir, const nlohmann::json& weight_map) {
  test::write_bytes(dir / "model.safetensors.index.json",
                    nlohmann::json{{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}}.dump());
}

TEST(Checkpoint, SingleFileNamesInfoAndChecks) {
  TempDir dir;
  write_file(dir / "model.safetensors", {{"b", {1, 2}}, {"a", {3}}, {"layers.0.rotary_emb.inv_freq", {4}}});
  const Checkpoint checkpoint = Checkpoint::open(dir.path());
  EXPECT_EQ(checkpoint.names(), (std::vector<std::string>{"a", "b", "layers.0.rotary_emb.inv_freq"}));
  EXPECT_TRUE(checkpoint.contains("a"));
  EXPECT_FALSE(checkpoint.contains("c"));
  EXPECT_EQ(checkpoint.info("b").shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(checkpoint.read_f32("b", {2}), (std::vector<float>{1, 2}));
  std::vector<float> dst(1);
  checkpoint.read_f32_into("a", {1}, dst);
  EXPECT_EQ(dst[0], 3.0f);
  checkpoint.release("a");
  EXPECT_EQ(checkpoint.read_f32("a", {1})[0], 3.0f);
  EXPECT_THAT([&] { checkpoint.info("c"); }, ThrowsMessage<Error>(HasSubstr("no tensor \"c\"")));

  EXPECT_NO_THROW(checkpoint.check_names({"a", "b"}, {"*.rotary_emb.inv_freq"}));
  EXPECT_NO_THROW(checkpoint.check_names({"a", "b"}, {"layers.0.rotary_emb.inv_freq"}));
  // missing tensor
  EXPECT_THAT([&] { checkpoint.check_names({"a", "b", "z.weight", "layers.0.rotary_emb.inv_freq"}); },
              ThrowsMessage<Error>(AllOf(HasSubstr("missing 1 tensor"), HasSubstr("\"z.weight\""), HasSubstr(dir.path().string()))));
  // extra tensors
  EXPECT_THAT([&] { checkpoint.check_names({"a"}, {"*.rotary_emb.inv_freq"}); },
              ThrowsMessage<Error>(AllOf(HasSubstr("unexpected"), HasSubstr("\"b\""), Not(HasSubstr("inv_freq")))));
  EXPECT_THAT([&] { checkpoint.check_names({"a", "b"}); }, ThrowsMessage<Error>(HasSubstr("\"layers.0.rotary_emb.inv_freq\"")));
}

TEST(Checkpoint, ShardedIndexFindsTensorsAcrossShards) {
  TempDir dir;
  write_file(dir / "model-00001-of-00002.safetensors", {{"a", {1}}, {"b", {2, 3}}});
  write_file(dir / "model-00002-of-00002.safetensors", {{"c", {4, 5, 6}}});
  write_index(dir.path(), {{"a", "model-00001-of-00002.safetensors"},
                           {"b", "model-00001-of-00002.safetensors"},
                           {"c", "model-00002-of-00002.safetensors"}});
  const Checkpoint checkpoint = Checkpoint::open(dir.path());
  EXPECT_EQ(checkpoint.names(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(checkpoint.read_f32("c", {3}), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(checkpoint.read_f32("b", {2}), (std::vector<float>{2, 3}));
  EXPECT_NO_THROW(checkpoint.check_names({"a", "b", "c"}));
}

TEST(Checkpoint, SingleFileWinsOverAnIndex) {
  TempDir dir;
  write_file(dir / "model.safetensors", {{"x", {1}}});
  write_index(dir.path(), {{"y", "absent.safetensors"}});
  EXPECT_EQ(Checkpoint::open(dir.path()).names(), (std::vector<std::string>{"x"}));
}

TEST(BrokenCheckpoint, EmptyDirectory) {
  TempDir dir;
  EXPECT_THAT([&] { Checkpoint::open(dir.path()); },
              ThrowsMessage<Error>(AllOf(HasSubstr(dir.path().string()), HasSubstr("no model.safetensors"))));
}

TEST(BrokenCheckpoint, IndexPointsToAMissingShard) {
  TempDir dir;
  write_file(dir / "model-00001-of-00002.safetensors", {{"a", {1}}});
  write_index(dir.path(), {{"a", "model-00001-of-00002.safetensors"}, {"b", "model-00002-of-00002.safetensors"}});
  EXPECT_THAT([&] { Checkpoint::open(dir.path()); },
              ThrowsMessage<Error>(AllOf(HasSubstr("\"model-00002-of-00002.safetensors\""), HasSubstr("\"b\""),
                                         HasSubstr("does not exist"))));
}

TEST(BrokenCheckpoint, IndexMapsATensorToTheWrongShard) {
  TempDir dir;
  write_file(dir / "s1.safetensors", {{"a", {1}}});
  write_file(dir / "s2.safetensors", {{"b", {1}}});
  write_index(dir.path(), {{"a", "s2.safetensors"}, {"b", "s2.safetensors"}});
  EXPECT_THAT([&] { Checkpoint::open(dir.path()); },
              ThrowsMessage<Error>(AllOf(HasSubstr("\"a\""), HasSubstr("\"s2.safetensors\""), HasSubstr("does not hold it"))));
}

TEST(BrokenCheckpoint, ShardHoldsATensorTheIndexDoesNotMap) {
  TempDir dir;
  write_file(dir / "s1.safetensors", {{"a", {1}}, {"stray", {2}}});
  write_index(dir.path(), {{"a", "s1.safetensors"}});
  EXPECT_THAT([&] { Checkpoint::open(dir.path()); },
              ThrowsMessage<Error>(AllOf(HasSubstr("\"stray\""), HasSubstr("maps nowhere"))));
}

TEST(BrokenCheckpoint, BadIndexFiles) {
  TempDir dir;
  test::write_bytes(dir / "model.safetensors.index.json", "{\"weight_map\": ");
  EXPECT_THAT([&] { Checkpoint::open(dir.path()); }, ThrowsMessage<Error>(HasSubstr("invalid JSON")));
  test::write_bytes(dir / "model.safetensors.index.json", "{\"weight_map\": {\"a\": 3}}");
  EXPECT_THAT([&] { Checkpoint::open(dir.path()); }, ThrowsMessage<Error>(HasSubstr("\"a\"")));
  write_index(dir.path(), {{"a", "../outside.safetensors"}});
  EXPECT_THAT([&] { Checkpoint::open(dir.path()); }, ThrowsMessage<Error>(HasSubstr("not a file name inside")));
  test::write_bytes(dir / "model.safetensors.index.json", "{}");
  EXPECT_THAT([&] { Checkpoint::open(dir.path()); }, ThrowsMessage<Error>(HasSubstr("weight_map")));
}

TEST(BrokenCheckpoint, BrokenShardNamesTheShardFile) {
  TempDir dir;
  test::write_bytes(dir / "s1.safetensors", test::safetensors_bytes(R"({"a":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}})", "x"));
  write_index(dir.path(), {{"a", "s1.safetensors"}});
  EXPECT_THAT([&] { Checkpoint::open(dir.path()); },
              ThrowsMessage<Error>(AllOf(HasSubstr("s1.safetensors"), HasSubstr("\"Q4\""), HasSubstr("tensor \"a\""))));
}

TEST(BrokenCheckpoint, TruncatedModelFile) {
  TempDir dir;
  write_file(dir / "model.safetensors", {{"a", std::vector<float>(100, 1.0f)}});
  std::filesystem::resize_file(dir / "model.safetensors", std::filesystem::file_size(dir / "model.safetensors") - 5);
  EXPECT_THAT([&] { Checkpoint::open(dir.path()); },
              ThrowsMessage<Error>(AllOf(HasSubstr("model.safetensors"), HasSubstr("tensor \"a\""), HasSubstr("truncated"))));
}

}  // namespace
}  // namespace sift
