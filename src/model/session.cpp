// Session: the forward pass over the shared weights, with the session's own KV cache and
// workspace (model/session.h). The pass is the decoder stack of model/blocks.h:
//
//   x = embed(ids)                                  (T, H)
//   per layer l: attention_block(l); mlp_block(l)   rows R = T, or the logit rows in the last
//   logits = readout(x)                             (R, vocab rows)
#include "model/session.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/parallel.h"
#include "model/blocks.h"

namespace sift {
namespace {

template <typename T>
T* grow(std::vector<T>& buffer, int64_t n) {
  if (static_cast<int64_t>(buffer.size()) < n) buffer.resize(static_cast<size_t>(n));
  return buffer.data();
}

template <typename T>
T* grow(HugePageVector<T>& buffer, int64_t n) {
  return grow_populated(buffer, static_cast<size_t>(n));
}

}  // namespace

struct Session::Workspace {
  std::vector<VisibleKeys> visible, visible_rows;
  HugePageVector<float> x, x_rows, h, qkv, q_rows, attn, gate_up, act, proj, logits;
};

Session::Session(const Model& model, int n_threads)
    : model_(model), n_threads_(n_threads), k_(model.config().n_layers), v_(model.config().n_layers),
      ws_(std::make_unique<Workspace>()) {}

Session::~Session() = default;

void Session::truncate(int64_t n_keys) {
  if (n_keys < 0 || n_keys > n_cached_) fail("cannot truncate a KV cache of {} keys to {}", n_cached_, n_keys);
  n_cached_ = n_keys;
}

void Session::extend_keys(int64_t n_keys) {
  if (n_keys < n_cached_) fail("cannot extend a KV cache of {} keys to {}", n_cached_, n_keys);
  reserve_keys(n_keys);
  n_cached_ = n_keys;
}

void Session::move_keys(KeyRange from, int64_t to) {
  if (from.begin < 0 || from.begin > from.end || from.end > n_cached_ || to < 0 || to + from.size() > n_cached_)
    fail("cannot move keys [{}, {}) to {} in a KV cache of {} keys", from.begin, from.end, to, n_cached_);
  const int64_t kv_dim = model_.config().kv_dim();
  const size_t bytes = static_cast<size_t>(from.size() * kv_dim) * sizeof(float);
  for (size_t l = 0; l < k_.size(); ++l) {
    std::memmove(k_[l].data() + to * kv_dim, k_[l].data() + from.begin * kv_dim, bytes);
    std::memmove(v_[l].data() + to * kv_dim, v_[l].data() + from.begin * kv_dim, bytes);
  }
}

void Session::reserve_keys(int64_t n_keys) {
  if (n_keys <= key_capacity_) return;
  const int64_t kv_dim = model_.config().kv_dim();
  for (size_t l = 0; l < k_.size(); ++l) {  // keeps the cached rows
    grow(k_[l], n_keys * kv_dim);
    grow(v_[l], n_keys * kv_dim);
  }
  key_capacity_ = n_keys;
}

KvBlock Session::copy_keys(KeyRange range) const {
  if (range.begin < 0 || range.begin > range.end || range.end > n_cached_)
    fail("keys [{}, {}) are not all cached ({} keys)", range.begin, range.end, n_cached_);
  const int64_t kv_dim = model_.config().kv_dim(), n = range.size();
  KvBlock block;
  block.n_keys = n;
  block.keys.resize(static_cast<size_t>(k_.size() * n * kv_dim));
  block.values.resize(block.keys.size());
  for (size_t l = 0; l < k_.size(); ++l) {
    std::copy_n(k_[l].data() + range.begin * kv_dim, n * kv_dim, block.keys.data() + l * n * kv_dim);
    std::copy_n(v_[l].data() + range.begin * kv_dim, n * kv_dim, block.values.data() + l * n * kv_dim);
  }
  return block;
}

void Session::append_keys(const KvBlock& block) {
  const int64_t kv_dim = model_.config().kv_dim(), n = block.n_keys;
  if (static_cast<int64_t>(block.keys.size()) != static_cast<int64_t>(k_.size()) * n * kv_dim ||
      block.values.size() != block.keys.size())
    fail("a KV block of {} keys does not match this model's {} layers x {} KV columns", n, k_.size(), kv_dim);
  reserve_keys(n_cached_ + n);
  for (size_t l = 0; l < k_.size(); ++l) {
    std::copy_n(block.keys.data() + l * n * kv_dim, n * kv_dim, k_[l].data() + n_cached_ * kv_dim);
    std::copy_n(block.values.data() + l * n * kv_dim, n * kv_dim, v_[l].data() + n_cached_ * kv_dim);
  }
  n_cached_ += n;
}

LogitsView Session::forward(const ForwardRequest& request) {
  const ModelConfig& c = model_.config();
  validate_request(c, request, n_cached_);
  const ThreadCount threads(n_threads_);
  const int64_t T = static_cast<int64_t>(request.ids.size()), R = static_cast<int64_t>(request.logit_rows.size());
  const int64_t H = c.hidden_size, QKV = c.q_dim() + 2 * c.kv_dim(), I = c.intermediate_size;
  const int64_t rows = std::max(T, R);  // logit rows may repeat a token
  reserve_keys(n_cached_ + T);

  Workspace& w = *ws_;
  VisibleKeys* visible = grow(w.visible, T);
  for (const Segment& s : request.segments)
    for (int32_t j = 0; j < s.len; ++j) visible[s.start + j] = visible_keys(s, j, n_cached_);
  VisibleKeys* visible_rows = grow(w.visible_rows, R);
  for (int64_t r = 0; r < R; ++r) visible_rows[r] = visible[request.logit_rows[r]];
  const int64_t n_cols = request.vocab_rows.empty() ? c.vocab_size : static_cast<int64_t>(request.vocab_rows.size());

  const LayerBuffers buffers{.x = grow(w.x, T * H), .x_rows = grow(w.x_rows, R * H), .h = grow(w.h, rows * H),
                             .qkv = grow(w.qkv, T * QKV), .q_rows = grow(w.q_rows, R * QKV),
                             .attn = grow(w.attn, rows * c.q_dim()), .gate_up = grow(w.gate_up, rows * 2 * I),
                             .act = grow(w.act, rows * I), .proj = grow(w.proj, rows * H)};
  float* logits = grow(w.logits, R * n_cols);

  const ModelWeights& weights = model_.weights();
  embed_block(weights.embed, request.ids, buffers.x, H);
  Residual residual{buffers.x, T};
  for (int64_t l = 0; l < c.n_layers; ++l) {
    // Every layer but the last keeps all T rows (their K/V feed later tokens); the last only
    // the logit rows.
    const bool last = l + 1 == c.n_layers;
    const RowSelection selection = last ? RowSelection{true, request.logit_rows, visible_rows}
                                        : RowSelection{false, {}, visible};
    const LayerKv kv{k_[l].data(), v_[l].data(), n_cached_};
    residual = attention_block(c, weights.layers[l], model_.rope(), request.positions, selection, kv, buffers);
    mlp_block(c, weights.layers[l], residual, buffers);
  }
  readout_block(c, weights, residual, request.vocab_rows, buffers.h, logits);
  n_cached_ += T;
  return {R, n_cols, logits};
}

}  // namespace sift
