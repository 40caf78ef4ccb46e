// No config.json can crash sift or exhaust its memory: every size field of config.json, set to
// overflowing, negative, zero, absurd or merely wrong values next to a matching tiny
// checkpoint, gives a clean sift::Error from Model::load (naming the field when the value is
// out of range) having allocated less than 32 MiB (counted: tests/common/allocation_counter.h);
// the known hostile reproducers stay fixed; a NaN or Inf weight is refused at load,
// naming the tensor and element.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../common/allocation_counter.h"
#include "../io/safetensors_test_files.h"
#include "core/error.h"
#include "model/model.h"
#include "model/random_checkpoint.h"

namespace sift {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using nlohmann::json;
using test::TempDir;

// Hidden 16, 1 layer, 2 heads of 8 sharing 1 KV head, intermediate 32, vocabulary 32.
ModelConfig tiny(const std::string& architecture) {
  ModelConfig c = preset_model_config("tiny", architecture_named(architecture));
  c.hidden_size = 16, c.n_layers = 1, c.n_heads = 2, c.n_kv_heads = 1, c.head_dim = 8;
  c.intermediate_size = 32, c.vocab_size = 32, c.max_position_embeddings = 64;
  if (architecture == "llama") c.rope_scaling = {8.0, 1.0, 4.0, 32};
  return c;
}

json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

void write_json(const std::filesystem::path& path, const json& value) { test::write_bytes(path, value.dump()); }

// The most a failing load here may allocate: it reads a config.json of at most 2 MB (the
// nesting case: 8 MB with the string's growth) and a checkpoint of a few KiB, and lists the
// expected tensors of at most 1,024 layers (6.5 MB). The billion-layer config built 10 GB of
// expected tensor names before it looked at the file.
constexpr int64_t kMostBytesAFailingLoadAllocates = int64_t{32} << 20;

// Model::load(dir) must throw sift::Error having allocated little; returns its message.
std::string load_error(const std::filesystem::path& dir) {
  std::string message = "no error";
  const testing::Allocations allocated = testing::allocations_of([&] {
    try {
      Model::load(dir);
    } catch (const Error& e) {
      message = e.what();
    }
  });
  EXPECT_LT(allocated.bytes, kMostBytesAFailingLoadAllocates) << message;
  return message;
}

const json kOverflowAndNonsense[] = {
    json(int64_t{1} << 62), json(std::numeric_limits<int64_t>::max()), json(uint64_t{1} << 63), json(-1), json(0),
    json(1000000000), json(1e300), json("16"), json(nullptr)};

TEST(HostileConfig, EverySizeFieldGivesACleanError) {
  TempDir dir;
  write_random_checkpoint(dir.path(), tiny("qwen3"), DType::F32, 1);
  const json good = read_json(dir / "config.json");
  ASSERT_NO_THROW(Model::load(dir.path()));
  for (const char* field : {"hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
                            "head_dim", "intermediate_size", "vocab_size", "max_position_embeddings"}) {
    for (const json& value : kOverflowAndNonsense) {
      if (value.is_null() && (std::string(field) == "head_dim")) continue;  // null head_dim: derived, valid
      json config = good;
      config[field] = value;
      write_json(dir / "config.json", config);
      EXPECT_THAT(load_error(dir.path()), HasSubstr(field)) << field << " = " << value.dump();
    }
    // Plausible but not what the tensors hold (max_position_embeddings has no tensor).
    if (std::string(field) == "max_position_embeddings") continue;
    json config = good;
    config[field] = good[field].get<int64_t>() * 2;
    write_json(dir / "config.json", config);
    EXPECT_NE(load_error(dir.path()), "no error") << field << " doubled";
  }
}

TEST(HostileConfig, EveryRopeScalingFieldGivesACleanError) {
  TempDir dir;
  write_random_checkpoint(dir.path(), tiny("llama"), DType::F32, 2);
  const json good = read_json(dir / "config.json");
  ASSERT_NO_THROW(Model::load(dir.path()));
  for (const char* field : {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}) {
    for (const json& value : kOverflowAndNonsense) {
      if (value.is_null() && std::string(field) != "original_max_position_embeddings") continue;  // defaults
      json config = good;
      config["rope_scaling"][field] = value;
      write_json(dir / "config.json", config);
      EXPECT_THAT(load_error(dir.path()), HasSubstr(field)) << field << " = " << value.dump();
    }
  }
  json config = good;
  config["rope_scaling"]["high_freq_factor"] = 0.5;  // below low_freq_factor 1
  write_json(dir / "config.json", config);
  EXPECT_THAT(load_error(dir.path()), HasSubstr("must exceed low_freq_factor"));
}

// Reproducer 1: num_attention_heads x head_dim wrapped around int64 to the q_proj rows of the
// file, so the shapes matched and the forward pass read out of bounds (SIGSEGV).
TEST(HostileConfig, HeadProductsThatWrapAroundAreRefused) {
  TempDir dir;
  write_random_checkpoint(dir.path(), tiny("qwen3"), DType::F32, 3);
  const json good = read_json(dir / "config.json");
  json config = good;
  config["num_attention_heads"] = (int64_t{1} << 61) + 2;  // x head_dim 8 = 2^64 + 16 = 16 (mod 2^64)
  write_json(dir / "config.json", config);
  EXPECT_THAT(load_error(dir.path()), AllOf(HasSubstr("num_attention_heads"), HasSubstr("2305843009213693954")));
  config = good;
  config["num_key_value_heads"] = (int64_t{1} << 61) + 1;  // x head_dim 8 = 8 (mod 2^64)
  config["num_attention_heads"] = (int64_t{1} << 61) + 1;
  write_json(dir / "config.json", config);
  EXPECT_THAT(load_error(dir.path()), HasSubstr("num_attention_heads"));

  ModelConfig in_code = tiny("qwen3");  // a config built in code, not read: the products are checked too
  in_code.n_heads = int64_t{1} << 62;
  EXPECT_THAT([&] { in_code.q_dim(); }, ::testing::ThrowsMessage<Error>(HasSubstr("overflows")));
}

// Reproducer 2: a billion layers built the list of expected tensor names (10 GB) before the
// file was looked at.
TEST(HostileConfig, ABillionLayersFailsAtOnce) {
  TempDir dir;
  write_random_checkpoint(dir.path(), tiny("qwen2"), DType::F32, 4);
  json config = read_json(dir / "config.json");
  config["num_hidden_layers"] = 1000000000;
  write_json(dir / "config.json", config);
  EXPECT_THAT(load_error(dir.path()), AllOf(HasSubstr("num_hidden_layers"), HasSubstr("1000000000"),
                                            HasSubstr("[1, 1024]")));
  config["num_hidden_layers"] = 1024;  // within range, but the file has one layer
  write_json(dir / "config.json", config);
  EXPECT_THAT(load_error(dir.path()), AllOf(HasSubstr("missing"), HasSubstr("model.layers.1")));
}

TEST(HostileConfig, ShapeMismatchNamesTheConfigFields) {
  TempDir dir;
  write_random_checkpoint(dir.path(), tiny("qwen2"), DType::F32, 5);
  json config = read_json(dir / "config.json");
  config["intermediate_size"] = 48;
  write_json(dir / "config.json", config);
  EXPECT_THAT(load_error(dir.path()),
              AllOf(HasSubstr("\"model.layers.0.mlp.gate_proj.weight\" has shape [32, 16], config.json gives [48, 16]"),
                    HasSubstr("[intermediate_size, hidden_size]")));
}

TEST(HostileConfig, DeeplyNestedConfigJsonIsRefused) {
  TempDir dir;
  write_random_checkpoint(dir.path(), tiny("qwen3"), DType::F32, 6);
  const std::string good = read_json(dir / "config.json").dump();
  const size_t depth = 1000000;
  test::write_bytes(dir / "config.json", good.substr(0, good.size() - 1) + ", \"x\": " + std::string(depth, '[') +
                                             std::string(depth, ']') + "}");
  EXPECT_THAT(load_error(dir.path()), AllOf(HasSubstr("config.json"), HasSubstr("nested deeper than 64")));
}

// Found by fuzz_model_config: a number beyond double range made nlohmann throw out_of_range.
TEST(HostileConfig, NumbersBeyondDoubleRangeAreInvalidJson) {
  TempDir dir;
  write_random_checkpoint(dir.path(), tiny("qwen3"), DType::F32, 6);
  const std::string good = read_json(dir / "config.json").dump();
  test::write_bytes(dir / "config.json", good.substr(0, good.size() - 1) + ", \"rope_theta\": 1e9223372036854775807}");
  EXPECT_THAT(load_error(dir.path()), AllOf(HasSubstr("config.json"), HasSubstr("invalid JSON")));
}

// Rewrites element `index` of tensor `name` in dir/model.safetensors with the raw bits given
// (little-endian, the tensor's element size).
void poke_element(const std::filesystem::path& file, const std::string& name, int64_t index, uint32_t bits) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | static_cast<uint8_t>(bytes[i]);
  const json header = json::parse(bytes.substr(8, header_len));
  const size_t element = header[name]["dtype"] == "F32" ? 4 : 2;
  const size_t at = 8 + header_len + header[name]["data_offsets"][0].get<size_t>() + index * element;
  for (size_t b = 0; b < element; ++b) bytes[at + b] = static_cast<char>(bits >> (8 * b));
  test::write_bytes(file, bytes);
}

TEST(NonFiniteWeights, AreReportedAtLoadNamingTensorAndElement) {
  TempDir dir;
  write_random_checkpoint(dir / "f32", tiny("qwen3"), DType::F32, 7);
  poke_element(dir / "f32" / "model.safetensors", "model.layers.0.mlp.up_proj.weight", 37, 0x7FC00000u);  // NaN
  EXPECT_THAT(load_error(dir / "f32"),
              AllOf(HasSubstr("\"model.layers.0.mlp.up_proj.weight\""), HasSubstr("nan at element 37")));

  write_random_checkpoint(dir / "bf16", tiny("qwen2"), DType::BF16, 8);
  poke_element(dir / "bf16" / "model.safetensors", "model.embed_tokens.weight", 500, 0xFF80u);  // -Inf
  EXPECT_THAT(load_error(dir / "bf16"), AllOf(HasSubstr("\"model.embed_tokens.weight\""), HasSubstr("-inf at element 500")));

  write_random_checkpoint(dir / "norm", tiny("llama"), DType::BF16, 9);  // a vector, read whole
  poke_element(dir / "norm" / "model.safetensors", "model.norm.weight", 15, 0x7F80u);  // +Inf
  EXPECT_THAT(load_error(dir / "norm"), AllOf(HasSubstr("\"model.norm.weight\""), HasSubstr("inf at element 15")));
}

}  // namespace
}  // namespace sift
