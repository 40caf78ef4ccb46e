#pragma once
// An independent float64 forward pass for ONE plain causal prompt (positions 0..n-1),
// written straight from the Hugging Face modeling code, with none of sift's kernels,
// layouts or caches. Scoring tests compare every execution mode with it.
//
//   x = embed[ids]
//   per layer: h = rms(x) * w_in; q,k,v = h W^T (+b); Qwen3: rms per head on q, k;
//              rope (rotate_half, angle = pos * theta^(-2i/d), all in double);
//              a = softmax(q k^T / sqrt(d), causal) v (GQA); x += a Wo^T (+b)
//              h = rms(x) * w_post; x += (silu(h Wg^T) * (h Wu^T)) Wd^T
//   logits = rms(x_last) * w_final . head rows
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/checkpoint.h"
#include "model/config.h"

namespace sift::testing {

class ReferenceForward {
 public:
  explicit ReferenceForward(const std::filesystem::path& dir)
      : config_(load_model_config(dir / "config.json")), checkpoint_(Checkpoint::open(dir)) {
    if (config_.rope_scaling.factor != 0) fail("the test reference does not implement rope_scaling");
    const ModelConfig& c = config_;
    const int64_t H = c.hidden_size, D = c.q_dim(), E = c.kv_dim(), I = c.intermediate_size;
    embed_ = read("model.embed_tokens.weight", {c.vocab_size, H});
    head_ = c.tie_word_embeddings ? embed_ : read("lm_head.weight", {c.vocab_size, H});
    final_norm_ = read("model.norm.weight", {H});
    for (int64_t l = 0; l < c.n_layers; ++l) {
      const std::string p = "model.layers." + std::to_string(l) + ".";
      Layer L;
      L.input_norm = read(p + "input_layernorm.weight", {H});
      L.post_norm = read(p + "post_attention_layernorm.weight", {H});
      L.wq = read(p + "self_attn.q_proj.weight", {D, H});
      L.wk = read(p + "self_attn.k_proj.weight", {E, H});
      L.wv = read(p + "self_attn.v_proj.weight", {E, H});
      L.wo = read(p + "self_attn.o_proj.weight", {H, D});
      if (c.qkv_bias()) {
        L.bq = read(p + "self_attn.q_proj.bias", {D});
        L.bk = read(p + "self_attn.k_proj.bias", {E});
        L.bv = read(p + "self_attn.v_proj.bias", {E});
      }
      if (c.o_bias()) L.bo = read(p + "self_attn.o_proj.bias", {H});
      if (c.qk_norm()) {
        L.q_norm = read(p + "self_attn.q_norm.weight", {c.head_dim});
        L.k_norm = read(p + "self_attn.k_norm.weight", {c.head_dim});
      }
      L.wg = read(p + "mlp.gate_proj.weight", {I, H});
      L.wu = read(p + "mlp.up_proj.weight", {I, H});
      L.wd = read(p + "mlp.down_proj.weight", {H, I});
      layers_.push_back(std::move(L));
    }
  }

  // Logits of the vocabulary rows `vocab` at the last token of the prompt `ids`.
  std::vector<double> last_logits(const std::vector<int32_t>& ids, const std::vector<int32_t>& vocab) const {
    const ModelConfig& c = config_;
    const int64_t n = static_cast<int64_t>(ids.size()), H = c.hidden_size, hd = c.head_dim;
    const int64_t D = c.q_dim(), E = c.kv_dim(), I = c.intermediate_size, group = c.n_heads / c.n_kv_heads;
    std::vector<std::vector<double>> x(n);
    for (int64_t t = 0; t < n; ++t) x[t].assign(embed_.begin() + ids[t] * H, embed_.begin() + (ids[t] + 1) * H);

    for (const Layer& L : layers_) {
      std::vector<std::vector<double>> q(n), k(n), v(n);
      for (int64_t t = 0; t < n; ++t) {
        std::vector<double> h = rms_norm(x[t], L.input_norm);
        q[t] = linear(h, L.wq, L.bq, D);
        k[t] = linear(h, L.wk, L.bk, E);
        v[t] = linear(h, L.wv, L.bv, E);
        if (c.qk_norm()) {
          norm_heads(q[t], L.q_norm);
          norm_heads(k[t], L.k_norm);
        }
        rope(q[t], t);
        rope(k[t], t);
      }
      for (int64_t t = 0; t < n; ++t) {
        std::vector<double> attn(D, 0.0);
        for (int64_t head = 0; head < c.n_heads; ++head) {
          const int64_t kv = (head / group) * hd;
          std::vector<double> scores(t + 1);
          double max_score = -INFINITY;
          for (int64_t j = 0; j <= t; ++j) {
            double s = 0;
            for (int64_t i = 0; i < hd; ++i) s += q[t][head * hd + i] * k[j][kv + i];
            scores[j] = s / std::sqrt(double(hd));
            max_score = std::max(max_score, scores[j]);
          }
          double total = 0;
          for (int64_t j = 0; j <= t; ++j) total += (scores[j] = std::exp(scores[j] - max_score));
          for (int64_t j = 0; j <= t; ++j)
            for (int64_t i = 0; i < hd; ++i) attn[head * hd + i] += scores[j] / total * v[j][kv + i];
        }
        std::vector<double> o = linear(attn, L.wo, L.bo, H);
        for (int64_t i = 0; i < H; ++i) x[t][i] += o[i];
        std::vector<double> h = rms_norm(x[t], L.post_norm);
        std::vector<double> g = linear(h, L.wg, {}, I), u = linear(h, L.wu, {}, I);
        for (int64_t i = 0; i < I; ++i) g[i] = g[i] / (1 + std::exp(-g[i])) * u[i];
        std::vector<double> d = linear(g, L.wd, {}, H);
        for (int64_t i = 0; i < H; ++i) x[t][i] += d[i];
      }
    }
    std::vector<double> h = rms_norm(x[n - 1], final_norm_);
    std::vector<double> logits;
    for (int32_t row : vocab) {
      double s = 0;
      for (int64_t i = 0; i < H; ++i) s += h[i] * head_[row * H + i];
      logits.push_back(s);
    }
    return logits;
  }

  const ModelConfig& config() const { return config_; }

 private:
  struct Layer {
    std::vector<double> input_norm, post_norm, wq, wk, wv, wo, bq, bk, bv, bo, q_norm, k_norm, wg, wu, wd;
  };

  std::vector<double> read(const std::string& name, const std::vector<int64_t>& shape) const {
    std::vector<float> f = checkpoint_.read_f32(name, shape);
    return {f.begin(), f.end()};
  }

  std::vector<double> rms_norm(const std::vector<double>& x, const std::vector<double>& w) const {
    double mean_sq = 0;
    for (double v : x) mean_sq += v * v;
    mean_sq /= double(x.size());
    const double inv = 1.0 / std::sqrt(mean_sq + config_.rms_norm_eps);
    std::vector<double> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = w[i] * (x[i] * inv);
    return y;
  }

  void norm_heads(std::vector<double>& x, const std::vector<double>& w) const {
    const int64_t hd = config_.head_dim;
    for (size_t h = 0; h * hd < x.size(); ++h) {
      std::vector<double> head(x.begin() + h * hd, x.begin() + (h + 1) * hd);
      head = rms_norm(head, w);
      std::copy(head.begin(), head.end(), x.begin() + h * hd);
    }
  }

  // y (out) = W (out, in) x (+ b)
  static std::vector<double> linear(const std::vector<double>& x, const std::vector<double>& w,
                                    const std::vector<double>& b, int64_t out) {
    const int64_t in = static_cast<int64_t>(x.size());
    std::vector<double> y(out);
    for (int64_t o = 0; o < out; ++o) {
      double s = b.empty() ? 0.0 : b[o];
      for (int64_t i = 0; i < in; ++i) s += w[o * in + i] * x[i];
      y[o] = s;
    }
    return y;
  }

  void rope(std::vector<double>& x, int64_t position) const {
    const int64_t hd = config_.head_dim, half = hd / 2;
    for (size_t h = 0; h * hd < x.size(); ++h) {
      double* v = x.data() + h * hd;
      for (int64_t i = 0; i < half; ++i) {
        const double inv_freq = 1.0 / std::pow(config_.rope_theta, static_cast<double>(2 * i) / static_cast<double>(hd));
        const double angle = static_cast<double>(position) * inv_freq;
        const double x1 = v[i], x2 = v[i + half];
        v[i] = x1 * std::cos(angle) - x2 * std::sin(angle);
        v[i + half] = x2 * std::cos(angle) + x1 * std::sin(angle);
      }
    }
  }

  ModelConfig config_;
  Checkpoint checkpoint_;
  std::vector<double> embed_, head_, final_norm_;
  std::vector<Layer> layers_;
};

}  // namespace sift::testing
