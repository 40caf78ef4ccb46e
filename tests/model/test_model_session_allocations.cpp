// A session allocates nothing once it has grown to the largest call it has seen: the
// workspace and the KV cache are reused (model/session.h). Counted with a replaced global
// operator new (tests/common/allocation_counter.h).
#include <gtest/gtest.h>

#include <numeric>

#include "../common/allocation_counter.h"
#include "golden_checkpoints.h"
#include "model/model.h"
#include "model/session.h"

namespace sift {
namespace {

// One multi-item call: a query of q tokens, then n items of len tokens against it.
struct Call {
  std::vector<int32_t> ids, positions, rows;
  std::vector<Segment> segments;
  Call(int32_t q, int32_t n, int32_t len) {
    for (int32_t t = 0; t < q; ++t) ids.push_back(t + 3), positions.push_back(t);
    segments.push_back({0, q, 0, 0});
    for (int32_t i = 0; i < n; ++i) {
      segments.push_back({static_cast<int32_t>(ids.size()), len, 0, q});
      for (int32_t t = 0; t < len; ++t) ids.push_back(7 * i + t + 1), positions.push_back(q + t);
      rows.push_back(static_cast<int32_t>(ids.size()) - 1);
    }
  }
};

// Weights held in F32, kept 16-bit (widened in gemm) and quantized to Q8 (activations
// quantized per call): none of the kernels allocates once grown.
struct Storage {
  const char* checkpoint;
  WeightStorage storage;
};

class SessionAllocations : public ::testing::TestWithParam<Storage> {};

TEST_P(SessionAllocations, NoneOnceGrownToTheLargestCall) {
  auto model = Model::load(testing::golden_root() / GetParam().checkpoint, GetParam().storage);
  Session session(*model, 2);
  const std::vector<int32_t> vocab = {3, 5};
  const Call large(30, 6, 5), small(9, 2, 3);
  const auto run = [&](const Call& c) {
    session.forward({c.ids, c.positions, c.segments, c.rows, vocab});
    session.truncate(0);
  };
  run(large);  // warm-up: the session grows to this call
  run(small);
  const int64_t before = testing::allocations_so_far().count;
  for (int repeat = 0; repeat < 5; ++repeat) {
    run(small);
    run(large);
  }
  EXPECT_EQ(testing::allocations_so_far().count - before, 0) << "forward calls allocated after warm-up";
  // A larger call grows the session once; the next ones allocate nothing again.
  const Call larger(40, 8, 6);
  run(larger);
  const int64_t after_growth = testing::allocations_so_far().count;
  run(larger);
  run(small);
  EXPECT_EQ(testing::allocations_so_far().count - after_growth, 0);
}

INSTANTIATE_TEST_SUITE_P(Weights, SessionAllocations,
                         ::testing::Values(Storage{"qwen3_f32", WeightStorage::Auto},
                                           Storage{"qwen3_bf16", WeightStorage::Auto},
                                           Storage{"qwen3_f32", WeightStorage::Q8}),
                         [](const ::testing::TestParamInfo<Storage>& info) {
                           return std::string(info.param.checkpoint) + "_" +
                                  std::string(weight_storage_name(info.param.storage));
                         });

}  // namespace
}  // namespace sift
