#pragma once
// The tensors a Hugging Face checkpoint of a config holds: names, shapes and what each one
// is, in the order model files list them. checkpoint_layout() is the one place sift spells
// a tensor name; loading (weights.cpp), the trainer's torch model and the random-checkpoint
// writer all read it. Linear weights are (out_features, in_features), row-major.
//
//   model.embed_tokens.weight                         (V, H)
//   model.layers.{i}.input_layernorm.weight           (H)
//   model.layers.{i}.self_attn.q_proj.weight          (n_heads * head_dim, H)     + .bias if qkv_bias
//   model.layers.{i}.self_attn.k_proj.weight          (n_kv_heads * head_dim, H)  + .bias if qkv_bias
//   model.layers.{i}.self_attn.v_proj.weight          (n_kv_heads * head_dim, H)  + .bias if qkv_bias
//   model.layers.{i}.self_attn.o_proj.weight          (H, n_heads * head_dim)     + .bias if o_bias
//   model.layers.{i}.self_attn.q_norm.weight          (head_dim)  if qk_norm (Qwen3)
//   model.layers.{i}.self_attn.k_norm.weight          (head_dim)  if qk_norm (Qwen3)
//   model.layers.{i}.post_attention_layernorm.weight  (H)
//   model.layers.{i}.mlp.gate_proj.weight             (I, H)
//   model.layers.{i}.mlp.up_proj.weight               (I, H)
//   model.layers.{i}.mlp.down_proj.weight             (H, I)
//   model.norm.weight                                 (H)
//   lm_head.weight                                    (V, H)  unless tie_word_embeddings
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/config.h"

namespace sift {

// How a tensor is initialised and regularised (random checkpoints, the trainer).
enum class TensorRole { Embedding, OutputHead, Norm, Projection, Bias };

// What a tensor is in the forward pass, whatever the checkpoint calls it.
enum class TensorKind {
  Embedding, FinalNorm, OutputHead,  // one each (layer -1)
  InputNorm, QProj, QBias, KProj, KBias, VProj, VBias, OProj, OBias, QNorm, KNorm,  // one per layer
  PostNorm, GateProj, UpProj, DownProj,
};

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  TensorRole role;
  TensorKind kind;
  int64_t layer = -1;            // the decoder layer, -1 for tensors outside the layers
  const char* shape_fields = "";  // the config.json fields the shape comes from, for messages
};

// The config is validated first (validate_model_config), so the list is bounded (at most
// model_limits::kLayers layers) and no shape overflows.
std::vector<TensorSpec> checkpoint_layout(const ModelConfig& config);

// Names a checkpoint may hold that the model does not read: rotary inv_freq buffers
// ("*" prefix = suffix match, see Checkpoint::check_names), and lm_head.weight when tied.
std::vector<std::string> ignorable_tensor_names(const ModelConfig& config);

// A layout indexed by (kind, layer), for code that needs one particular tensor.
class TensorLookup {
 public:
  explicit TensorLookup(const std::vector<TensorSpec>& layout);  // keeps a reference to it
  // nullptr when the config has no such tensor (a bias it does not use, a tied lm_head).
  const TensorSpec* find(TensorKind kind, int64_t layer = -1) const;
  // Error when absent.
  const TensorSpec& at(TensorKind kind, int64_t layer = -1) const;

 private:
  std::map<std::pair<int64_t, TensorKind>, const TensorSpec*> by_layer_and_kind_;
};

}  // namespace sift
