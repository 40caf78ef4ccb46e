#include "model/config.h"

#include <fmt/ranges.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/json_parse.h"

namespace sift {
namespace {

using nlohmann::json;

// A positive integer (any size that fits int64; validate_model_config bounds it).
int64_t required_int(const json& config, const char* key, const std::string& where) {
  auto it = config.find(key);
  if (it == config.end()) fail("{}: missing required field \"{}\"", where, key);
  const bool fits = it->is_number_integer() && !(it->is_number_unsigned() && it->get<uint64_t>() > INT64_MAX);
  if (!fits || it->get<int64_t>() <= 0)
    fail("{}: field \"{}\" must be a positive integer, got {}", where, key, it->dump());
  return it->get<int64_t>();
}

double optional_number(const json& config, const char* key, double fallback, const std::string& where) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_number()) fail("{}: field \"{}\" must be a number, got {}", where, key, it->dump());
  return it->get<double>();
}

std::string optional_string(const json& config, const char* key, const std::string& fallback, const std::string& where) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_string()) fail("{}: field \"{}\" must be a string, got {}", where, key, it->dump());
  return it->get<std::string>();
}

bool optional_bool(const json& config, const char* key, bool fallback, const std::string& where) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) fail("{}: field \"{}\" must be true or false, got {}", where, key, it->dump());
  return it->get<bool>();
}

int64_t optional_token_id(const json& config, const char* key) {
  auto it = config.find(key);
  if (it == config.end()) return -1;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_array() && !it->empty() && (*it)[0].is_number_integer()) return (*it)[0].get<int64_t>();
  return -1;
}

// rope_scaling: null, {"rope_type": "default"}, or a type the architecture allows (only
// "llama3" is implemented: factor, low/high_freq_factor, original_max_position_embeddings).
RopeScaling parse_rope_scaling(const json& config, const Architecture& architecture, const std::string& where) {
  RopeScaling scaling;
  auto it = config.find("rope_scaling");
  if (it == config.end() || it->is_null()) return scaling;
  if (!it->is_object()) fail("{}: field \"rope_scaling\" must be an object or null", where);
  const std::string sub = where + " rope_scaling";
  const std::string type = optional_string(*it, "rope_type", optional_string(*it, "type", "", sub), sub);
  if (type == "default") return scaling;
  if (!architecture.allows_rope_scaling(type)) {
    std::vector<std::string_view> supported(architecture.rope_scaling_types.begin(), architecture.rope_scaling_types.end());
    supported.push_back("default");
    fail("{}: rope_scaling type \"{}\" is not supported for {} (supported: {})", where, type, architecture.hf_name,
         fmt::join(supported, ", "));
  }
  scaling.factor = optional_number(*it, "factor", 0.0, sub);
  if (scaling.factor <= 0) fail("{}: rope_scaling.factor must be > 0", where);
  scaling.low_freq_factor = optional_number(*it, "low_freq_factor", 1.0, sub);
  scaling.high_freq_factor = optional_number(*it, "high_freq_factor", 4.0, sub);
  scaling.original_max_position_embeddings = required_int(*it, "original_max_position_embeddings", sub);
  return scaling;
}

struct SizeField {
  const char* key;  // in config.json
  int64_t ModelConfig::*field;
  int64_t limit;
};

constexpr SizeField kSizeFields[] = {
    {"hidden_size", &ModelConfig::hidden_size, model_limits::kHiddenSize},
    {"num_hidden_layers", &ModelConfig::n_layers, model_limits::kLayers},
    {"num_attention_heads", &ModelConfig::n_heads, model_limits::kHeads},
    {"num_key_value_heads", &ModelConfig::n_kv_heads, model_limits::kHeads},
    {"head_dim", &ModelConfig::head_dim, model_limits::kHeadDim},
    {"intermediate_size", &ModelConfig::intermediate_size, model_limits::kIntermediateSize},
    {"vocab_size", &ModelConfig::vocab_size, model_limits::kVocabSize},
    {"max_position_embeddings", &ModelConfig::max_position_embeddings, model_limits::kPositions},
};

void check_int_range(int64_t value, int64_t limit, const char* key, const std::string& where) {
  if (value < 1 || value > limit)
    fail("{}: field \"{}\" is {}, outside sift's range [1, {}]", where, key, value, limit);
}

// A finite number > 0 (and <= limit when there is one).
void check_positive(double value, const char* key, const std::string& where,
                    double limit = std::numeric_limits<double>::infinity()) {
  if (std::isfinite(value) && value > 0 && value <= limit) return;
  if (std::isinf(limit)) fail("{}: field \"{}\" is {}, it must be a finite number > 0", where, key, value);
  fail("{}: field \"{}\" is {}, outside sift's range (0, {}]", where, key, value, limit);
}

int64_t checked_product(int64_t a, int64_t b, const char* what) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product)) fail("model config: {} = {} x {} overflows int64", what, a, b);
  return product;
}

}  // namespace

int64_t ModelConfig::q_dim() const { return checked_product(n_heads, head_dim, "num_attention_heads x head_dim"); }
int64_t ModelConfig::kv_dim() const { return checked_product(n_kv_heads, head_dim, "num_key_value_heads x head_dim"); }

void validate_model_config(const ModelConfig& c, const std::string& where) {
  if (!c.architecture) fail("{}: no architecture", where);
  for (const SizeField& f : kSizeFields) check_int_range(c.*f.field, f.limit, f.key, where);
  if (c.head_dim % 2 != 0) fail("{}: head_dim {} must be even for RoPE", where, c.head_dim);
  if (c.n_heads % c.n_kv_heads != 0)
    fail("{}: num_attention_heads {} is not a multiple of num_key_value_heads {}", where, c.n_heads, c.n_kv_heads);
  check_positive(c.rope_theta, "rope_theta", where);
  check_positive(c.rms_norm_eps, "rms_norm_eps", where);
  const RopeScaling& s = c.rope_scaling;
  if (s.factor == 0) return;  // no rope_scaling
  if (!c.architecture->allows_rope_scaling("llama3"))
    fail("{}: rope_scaling type \"llama3\" is not supported for {}", where, c.architecture->hf_name);
  check_positive(s.factor, "rope_scaling.factor", where, model_limits::kRopeScalingFactor);
  check_positive(s.low_freq_factor, "rope_scaling.low_freq_factor", where, model_limits::kRopeScalingFactor);
  check_positive(s.high_freq_factor, "rope_scaling.high_freq_factor", where, model_limits::kRopeScalingFactor);
  if (s.high_freq_factor <= s.low_freq_factor)
    fail("{}: rope_scaling.high_freq_factor must exceed low_freq_factor", where);
  check_int_range(s.original_max_position_embeddings, model_limits::kPositions,
                  "rope_scaling.original_max_position_embeddings", where);
}

ModelConfig parse_model_config(const json& config, const std::string& where) {
  if (!config.is_object()) fail("{}: config must be a JSON object", where);
  ModelConfig c;
  auto arch = config.find("architectures");
  if (arch == config.end() || !arch->is_array() || arch->size() != 1 || !(*arch)[0].is_string())
    fail("{}: field \"architectures\" must be a list with one name", where);
  const std::string name = (*arch)[0].get<std::string>();
  c.architecture = find_architecture(name);
  if (!c.architecture)
    fail("{}: architecture \"{}\" is not supported (supported: {})", where, name, hf_architecture_names());

  c.hidden_size = required_int(config, "hidden_size", where);
  c.n_layers = required_int(config, "num_hidden_layers", where);
  c.n_heads = required_int(config, "num_attention_heads", where);
  c.n_kv_heads = config.contains("num_key_value_heads") ? required_int(config, "num_key_value_heads", where)
                                                         : c.n_heads;
  c.intermediate_size = required_int(config, "intermediate_size", where);
  c.vocab_size = required_int(config, "vocab_size", where);
  c.max_position_embeddings = config.contains("max_position_embeddings")
                                  ? required_int(config, "max_position_embeddings", where) : 32768;
  if (config.contains("head_dim") && !config["head_dim"].is_null()) {
    c.head_dim = required_int(config, "head_dim", where);
  } else {
    if (c.hidden_size % c.n_heads != 0)
      fail("{}: hidden_size {} is not a multiple of num_attention_heads {} and head_dim is not given",
           where, c.hidden_size, c.n_heads);
    c.head_dim = c.hidden_size / c.n_heads;
  }
  c.rope_theta = optional_number(config, "rope_theta", 10000.0, where);
  c.rms_norm_eps = optional_number(config, "rms_norm_eps", 1e-6, where);
  c.tie_word_embeddings = optional_bool(config, "tie_word_embeddings", false, where);
  c.rope_scaling = parse_rope_scaling(config, *c.architecture, where);

  const std::string act = optional_string(config, "hidden_act", "silu", where);
  if (act != "silu") fail("{}: hidden_act \"{}\" is not supported (supported: silu)", where, act);
  if (optional_bool(config, "mlp_bias", false, where)) fail("{}: mlp_bias true is not supported", where);
  if (optional_bool(config, "use_sliding_window", false, where))
    fail("{}: use_sliding_window true is not supported", where);
  if (c.architecture->reads_attention_bias())
    c.attention_bias = optional_bool(config, "attention_bias", false, where);
  c.bos_token_id = optional_token_id(config, "bos_token_id");
  c.eos_token_id = optional_token_id(config, "eos_token_id");
  validate_model_config(c, where);
  return c;
}

ModelConfig load_model_config(const std::filesystem::path& config_json) {
  std::ifstream in(config_json);
  if (!in) fail("{}: cannot open (a model directory needs config.json)", config_json.string());
  const json config = parse_json(in, config_json.string());
  return parse_model_config(config, config_json.string());
}

nlohmann::json model_config_to_json(const ModelConfig& c) {
  if (!c.architecture) fail("model config has no architecture");
  json j = {{"architectures", {std::string(c.architecture->hf_name)}},
            {"hidden_size", c.hidden_size},
            {"num_hidden_layers", c.n_layers},
            {"num_attention_heads", c.n_heads},
            {"num_key_value_heads", c.n_kv_heads},
            {"head_dim", c.head_dim},
            {"intermediate_size", c.intermediate_size},
            {"vocab_size", c.vocab_size},
            {"max_position_embeddings", c.max_position_embeddings},
            {"rope_theta", c.rope_theta},
            {"rms_norm_eps", c.rms_norm_eps},
            {"tie_word_embeddings", c.tie_word_embeddings},
            {"hidden_act", "silu"},
            {"torch_dtype", "float32"}};
  if (c.architecture->reads_attention_bias()) j["attention_bias"] = c.attention_bias;
  if (c.rope_scaling.factor > 0)
    j["rope_scaling"] = {{"rope_type", "llama3"},
                         {"factor", c.rope_scaling.factor},
                         {"low_freq_factor", c.rope_scaling.low_freq_factor},
                         {"high_freq_factor", c.rope_scaling.high_freq_factor},
                         {"original_max_position_embeddings", c.rope_scaling.original_max_position_embeddings}};
  if (c.bos_token_id >= 0) j["bos_token_id"] = c.bos_token_id;
  if (c.eos_token_id >= 0) j["eos_token_id"] = c.eos_token_id;
  return j;
}

RopeParameters rope_parameters(const ModelConfig& config) {
  return {.head_dim = config.head_dim,
          .theta = config.rope_theta,
          .max_positions = config.max_position_embeddings,
          .scaling_factor = config.rope_scaling.factor,
          .low_freq_factor = config.rope_scaling.low_freq_factor,
          .high_freq_factor = config.rope_scaling.high_freq_factor,
          .original_max_positions = config.rope_scaling.original_max_position_embeddings};
}

}  // namespace sift
