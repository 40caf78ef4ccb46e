#pragma once
// Session: one user of a loaded Model. It owns the KV cache and the workspace of its forward
// calls and its own thread count; the model's weights are shared and read-only, so several
// sessions can run at once on one model (each from its own thread) and give the same bits
// as one (docs/engine.md).
//
//   key space of a call = the session's cached keys 0..C-1 ++ the call's new tokens C..C+T-1
//
// forward() appends the new tokens' K/V to the cache; truncate() drops the tail (prefix mode
// keeps a query's keys and drops each item's). A call allocates nothing once the session has
// grown to the largest call (tokens, logit rows, cached keys) it has seen.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/huge_pages.h"
#include "model/model.h"

namespace sift {

// Every layer's K and V for a run of keys: (n_layers, n_keys, kv_dim) each, as copied out of
// a session (a query's KV kept for later calls, e.g. by a serving cache).
struct KvBlock {
  int64_t n_keys = 0;
  std::vector<float> keys, values;
  size_t bytes() const { return (keys.size() + values.size()) * sizeof(float); }
};

class Session {
 public:
  // n_threads <= 0: the process default (--threads, OMP_NUM_THREADS or all cores).
  explicit Session(const Model& model, int n_threads = 0);
  virtual ~Session();  // virtual, like the calls below, so a test can script a model
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs the request's tokens after the cached keys and appends their K/V to the cache.
  // The logits (logit_rows x vocab rows) stay valid until the next call on this session.
  virtual LogitsView forward(const ForwardRequest& request);

  virtual int64_t n_cached() const { return n_cached_; }
  virtual void truncate(int64_t n_keys);  // keeps keys [0, n_keys)
  // Grows the cache to n_keys >= n_cached() keys; keys past the old end hold anything until a
  // call or move_keys writes them (no token may see them before). Batched decoding
  // (scoring/batched_decode.h) reserves each row's region of the key space this way.
  virtual void extend_keys(int64_t n_keys);
  // Copies the K/V of cached keys `from` to [to, to + from.size()) in every layer (the ranges
  // may overlap; `to + size` must lie within the cache).
  virtual void move_keys(KeyRange from, int64_t to);

  KvBlock copy_keys(KeyRange range) const;  // K/V of cached keys [begin, end)
  void append_keys(const KvBlock& block);   // appends them after the cached keys

  const Model& model() const { return model_; }
  int n_threads() const { return n_threads_; }
  void set_n_threads(int n_threads) { n_threads_ = n_threads; }  // from the next call on

 private:
  struct Workspace;
  void reserve_keys(int64_t n_keys);

  const Model& model_;
  int n_threads_;
  int64_t n_cached_ = 0, key_capacity_ = 0;
  std::vector<HugePageVector<float>> k_, v_;  // per layer: (key_capacity, kv_dim)
  std::unique_ptr<Workspace> ws_;
};

}  // namespace sift
