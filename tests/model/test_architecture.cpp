// The architecture table (model/architecture.h): every family is listed once, found by its
// Hugging Face name, and its traits decide the tensors of a config and what config.json
// may say.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "model/architecture.h"
#include "model/checkpoint_layout.h"
#include "model/config.h"
#include "model/random_checkpoint.h"

namespace sift {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::vector<std::string> layer_zero_names(const ModelConfig& config) {
  std::vector<std::string> names;
  for (const TensorSpec& spec : checkpoint_layout(config))
    if (spec.layer == 0) names.push_back(spec.name.substr(spec.name.find(".0.") + 3));
  return names;
}

TEST(Architecture, TableListsEveryFamilyOnceByShortName) {
  std::vector<std::string> hf_names;
  for (const Architecture* a : all_architectures()) hf_names.emplace_back(a->hf_name);
  EXPECT_THAT(hf_names, ElementsAre("LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"));
  EXPECT_THAT(architecture_short_names(), ElementsAre("llama", "qwen2", "qwen3"));
  EXPECT_EQ(find_architecture("Qwen2ForCausalLM"), &architecture_named("qwen2"));
  EXPECT_EQ(find_architecture("qwen2"), nullptr);  // config.json uses the Hugging Face name
  EXPECT_EQ(find_architecture("GPT2LMHeadModel"), nullptr);
  EXPECT_THAT([] { architecture_named("gpt2"); },
              ThrowsMessage<Error>(AllOf(HasSubstr("\"gpt2\""), HasSubstr("llama, qwen2, qwen3"))));
}

TEST(Architecture, TraitsDecideTheLayerTensors) {
  const std::vector<std::string> plain = {"input_layernorm.weight", "self_attn.q_proj.weight",
                                          "self_attn.k_proj.weight", "self_attn.v_proj.weight",
                                          "self_attn.o_proj.weight", "post_attention_layernorm.weight",
                                          "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight"};
  ModelConfig llama = preset_model_config("tiny", architecture_named("llama"));
  EXPECT_EQ(layer_zero_names(llama), plain);
  llama.attention_bias = true;  // q, k, v and o biases
  EXPECT_EQ(layer_zero_names(llama).size(), plain.size() + 4);
  EXPECT_TRUE(llama.o_bias());

  ModelConfig qwen2 = preset_model_config("tiny", architecture_named("qwen2"));
  qwen2.attention_bias = true;  // not read by Qwen2: q, k, v biases always, o never
  EXPECT_TRUE(qwen2.qkv_bias());
  EXPECT_FALSE(qwen2.o_bias());
  EXPECT_EQ(layer_zero_names(qwen2).size(), plain.size() + 3);

  const ModelConfig qwen3 = preset_model_config("tiny", architecture_named("qwen3"));
  EXPECT_THAT(layer_zero_names(qwen3), ::testing::Contains("self_attn.k_norm.weight"));
  EXPECT_EQ(layer_zero_names(qwen3).size(), plain.size() + 2);
}

TEST(Architecture, LookupFindsEachTensorByKindAndLayer) {
  ModelConfig c = preset_model_config("tiny", architecture_named("qwen2"));
  c.tie_word_embeddings = false;
  const std::vector<TensorSpec> layout = checkpoint_layout(c);
  const TensorLookup tensors(layout);
  EXPECT_EQ(tensors.at(TensorKind::KBias, 1).name, "model.layers.1.self_attn.k_proj.bias");
  EXPECT_EQ(tensors.at(TensorKind::KBias, 1).shape, (std::vector<int64_t>{c.kv_dim()}));
  EXPECT_EQ(tensors.at(TensorKind::OutputHead).name, "lm_head.weight");
  EXPECT_EQ(tensors.find(TensorKind::QNorm, 0), nullptr);
  EXPECT_EQ(tensors.find(TensorKind::InputNorm, c.n_layers), nullptr);
  EXPECT_THROW(tensors.at(TensorKind::OBias, 0), Error);
  for (const TensorSpec& spec : layout) EXPECT_EQ(tensors.find(spec.kind, spec.layer), &spec) << spec.name;
}

TEST(Architecture, ConfigJsonRoundTripsEveryArchitecture) {
  for (const Architecture* a : all_architectures()) {
    ModelConfig c = preset_model_config("tiny", *a);
    c.attention_bias = a->reads_attention_bias();
    const ModelConfig back = parse_model_config(model_config_to_json(c), "round trip");
    EXPECT_EQ(back.architecture, a);
    EXPECT_EQ(back.qkv_bias(), c.qkv_bias()) << a->hf_name;
    EXPECT_EQ(back.o_bias(), c.o_bias()) << a->hf_name;
    EXPECT_EQ(back.rope_theta, a->defaults.rope_theta);
    EXPECT_EQ(back.max_position_embeddings, a->defaults.max_position_embeddings);
  }
}

TEST(Architecture, ConfigJsonNamesWhatTheArchitectureDoesNotAllow) {
  nlohmann::json config = model_config_to_json(preset_model_config("tiny", architecture_named("qwen3")));
  nlohmann::json unknown = config;
  unknown["architectures"] = {"MistralForCausalLM"};
  EXPECT_THAT([&] { parse_model_config(unknown, "c.json"); },
              ThrowsMessage<Error>(AllOf(HasSubstr("c.json"), HasSubstr("\"MistralForCausalLM\""),
                                         HasSubstr("LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM"))));
  config["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}, {"original_max_position_embeddings", 8192}};
  EXPECT_THAT([&] { parse_model_config(config, "c.json"); },
              ThrowsMessage<Error>(AllOf(HasSubstr("\"llama3\""), HasSubstr("Qwen3ForCausalLM"))));
  config["architectures"] = {"LlamaForCausalLM"};
  EXPECT_EQ(parse_model_config(config, "c.json").rope_scaling.factor, 8.0);
}

}  // namespace
}  // namespace sift
