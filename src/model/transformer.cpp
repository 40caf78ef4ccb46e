// The forward pass shared by Qwen3, Qwen2 and Llama: they differ only in flags of
// ModelConfig (q/k norm, qkv/o bias, rope scaling), read once at load time.
//
// Per layer, for T new tokens (H hidden, D = q_dim, E = kv_dim, I = intermediate):
//   h   = rms_norm(x) * w_in                          (T, H)
//   qkv = h @ Wqkv^T (+ b)                            (T, D + 2E)
//   q, k = rms_norm per head (Qwen3); rope(q, k, positions)
//   K, V of the new tokens -> key space rows C..C+T-1 (cache, or a per-call buffer)
//   a   = attention(q, visible keys)                  (R, D)   R = rows still needed
//   x  += a @ Wo^T (+ b)                              (R, H)
//   x  += silu(rms_norm(x) @ Wg^T) * (.. @ Wu^T) @ Wd^T
// In the last layer only the rows that get logits need attention and the MLP (R = logit
// rows); every earlier layer needs all T rows, since their K/V feed later tokens.
#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/log.h"
#include "core/parallel.h"
#include "kernels/attention.h"
#include "kernels/elementwise.h"
#include "kernels/gemm.h"
#include "kernels/rope.h"
#include "model/model.h"
#include "model/weights.h"

namespace sift {
namespace {

class Transformer final : public Model {
 public:
  Transformer(ModelConfig config, ModelWeights weights)
      : config_(std::move(config)), weights_(std::move(weights)), rope_(config_) {}

  const ModelConfig& config() const override { return config_; }
  ForwardResult forward(const ForwardRequest& request, KvCache* cache) const override;

 private:
  ModelConfig config_;
  ModelWeights weights_;
  Rope rope_;
};

// For each new token, the keys it sees (key space: cached tokens, then the new ones).
std::vector<VisibleKeys> visible_keys(const std::vector<Segment>& segments, int64_t n_cached) {
  std::vector<VisibleKeys> visible;
  for (const Segment& s : segments)
    for (int32_t t = s.start; t < s.start + s.len; ++t)
      visible.push_back({s.context_len, static_cast<int32_t>(n_cached + s.start), static_cast<int32_t>(n_cached + t + 1)});
  return visible;
}

template <typename T>
std::vector<T> gather_rows(const std::vector<T>& src, int64_t width, std::span<const int32_t> rows) {
  std::vector<T> out(rows.size() * width);
  for (size_t i = 0; i < rows.size(); ++i)
    std::copy_n(src.begin() + rows[i] * width, width, out.begin() + static_cast<int64_t>(i) * width);
  return out;
}

ForwardResult Transformer::forward(const ForwardRequest& request, KvCache* cache) const {
  const int64_t n_cached = cache ? cache->size() : 0;
  validate_request(config_, request, n_cached);
  if (cache && n_cached + static_cast<int64_t>(request.ids.size()) > cache->capacity())
    fail("KV cache holds {} of {} tokens: no room for {} more", n_cached, cache->capacity(), request.ids.size());

  const ModelConfig& c = config_;
  const int64_t T = static_cast<int64_t>(request.ids.size());
  const int64_t H = c.hidden_size, D = c.q_dim(), E = c.kv_dim(), I = c.intermediate_size;
  const int64_t QKV = D + 2 * E;
  const float eps = static_cast<float>(c.rms_norm_eps);
  const AttentionDims dims{c.n_heads, c.n_kv_heads, c.head_dim};
  const std::vector<VisibleKeys> visible = visible_keys(request.segments, n_cached);
  const std::vector<VisibleKeys> visible_logit_rows = gather_rows(visible, 1, request.logit_rows);

  // x (T, H): token embeddings.
  std::vector<float> x(T * H);
  parallel_for(T, [&](int64_t t) { weights_.embed.copy_row(request.ids[t], x.data() + t * H); }, H);

  const int64_t rows = std::max<int64_t>(T, request.logit_rows.size());  // logit rows may repeat
  std::vector<float> h(rows * H), qkv(T * QKV), attn(rows * D), gate_up(rows * 2 * I), act(rows * I), proj(rows * H);
  std::vector<float> local_k, local_v;  // key space when there is no cache: (T, E)
  if (!cache) {
    local_k.resize(T * E);
    local_v.resize(T * E);
  }

  for (int64_t l = 0; l < c.n_layers; ++l) {
    const LayerWeights& L = weights_.layers[l];
    const bool last = l + 1 == c.n_layers;

    // Attention block: q, k, v for every new token.
    rms_norm(x.data(), T, H, H, L.input_norm.data(), eps, h.data(), H);
    gemm(h.data(), T, H, L.qkv, qkv.data(), QKV);
    if (!L.qkv_bias.empty()) add_bias(qkv.data(), T, QKV, QKV, L.qkv_bias.data());
    if (c.qk_norm()) {
      rms_norm_heads(qkv.data(), T, QKV, c.n_heads, c.head_dim, L.q_norm.data(), eps);
      rms_norm_heads(qkv.data() + D, T, QKV, c.n_kv_heads, c.head_dim, L.k_norm.data(), eps);
    }
    rope_.apply(qkv.data(), T, QKV, c.n_heads, request.positions.data());
    rope_.apply(qkv.data() + D, T, QKV, c.n_kv_heads, request.positions.data());
    float* keys = cache ? cache->keys(l) : local_k.data();
    float* values = cache ? cache->values(l) : local_v.data();
    for (int64_t t = 0; t < T; ++t) {
      std::memcpy(keys + (n_cached + t) * E, qkv.data() + t * QKV + D, E * sizeof(float));
      std::memcpy(values + (n_cached + t) * E, qkv.data() + t * QKV + D + E, E * sizeof(float));
    }

    // From here on only the rows still needed: all of them, or in the last layer the logit rows.
    int64_t R = T;
    const float* q = qkv.data();
    const VisibleKeys* rows_visible = visible.data();
    std::vector<float> q_rows;
    if (last) {
      R = static_cast<int64_t>(request.logit_rows.size());
      q_rows = gather_rows(qkv, QKV, request.logit_rows);
      q = q_rows.data();
      rows_visible = visible_logit_rows.data();
      x = gather_rows(x, H, request.logit_rows);
    }
    attention(dims, q, QKV, rows_visible, R, keys, values, attn.data());
    gemm(attn.data(), R, D, L.o, proj.data(), H);
    if (!L.o_bias.empty()) add_bias(proj.data(), R, H, H, L.o_bias.data());
    for (int64_t i = 0; i < R * H; ++i) x[i] += proj[i];

    // MLP block.
    rms_norm(x.data(), R, H, H, L.post_norm.data(), eps, h.data(), H);
    gemm(h.data(), R, H, L.gate_up, gate_up.data(), 2 * I);
    silu_mul(gate_up.data(), R, I, act.data());
    gemm(act.data(), R, I, L.down, proj.data(), H);
    for (int64_t i = 0; i < R * H; ++i) x[i] += proj[i];
  }
  if (cache) cache->set_size(n_cached + T);

  // Readout: x now holds the logit rows (R, H) in request order.
  const int64_t R = static_cast<int64_t>(request.logit_rows.size());
  rms_norm(x.data(), R, H, H, weights_.final_norm.data(), eps, h.data(), H);
  const PackedMatrix& head = weights_.output_head();
  ForwardResult result;
  result.n_rows = R;
  result.n_cols = request.vocab_rows.empty() ? c.vocab_size : static_cast<int64_t>(request.vocab_rows.size());
  result.logits.resize(R * result.n_cols);
  if (request.vocab_rows.empty()) {
    gemm(h.data(), R, H, head, result.logits.data(), result.n_cols);
  } else {
    parallel_for(R, [&](int64_t r) {
      gemv_rows(h.data() + r * H, head, request.vocab_rows.data(), result.n_cols, result.logits.data() + r * result.n_cols);
    }, H * result.n_cols);
  }
  return result;
}

}  // namespace

std::unique_ptr<Model> Model::load(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) fail("{}: not a model directory", dir.string());
  ModelConfig config = load_model_config(dir / "config.json");
  return from_checkpoint(std::move(config), Checkpoint::open(dir));
}

std::unique_ptr<Model> Model::from_checkpoint(ModelConfig config, const Checkpoint& checkpoint) {
  ModelWeights weights = load_weights(checkpoint, config);
  spdlog::debug("loaded {} ({} layers, hidden {}) from {}", config.architecture->hf_name, config.n_layers,
                config.hidden_size, checkpoint.dir().string());
  return std::make_unique<Transformer>(std::move(config), std::move(weights));
}

}  // namespace sift
