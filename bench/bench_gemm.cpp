// The gemm kernels by weight type on the projection shapes of a Qwen3-0.6B layer, in one run:
// F32, BF16 and F16 (widened inside the kernel), Q8 (int8 dot products: the best kernel for
// this CPU and the AVX2 one), and OpenBLAS sgemm on the same shape as the yardstick.
//
//   OMP_NUM_THREADS=1 build/bench/bench_gemm [--benchmark_filter=...]
//
// Rates are GFLOP per second of process CPU time (all threads), so a loaded machine moves
// them less than wall time; the ratios between rows of one run are what bench/results/
// reports. Shapes (M rows of activations, N outputs, K inputs): qkv (M, 2048, 1024),
// gate_up (M, 6144, 1024), down (M, 1024, 3072), for M = 512 (a prefill) and 28 (one item).
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <random>
#include <vector>

#include "core/blas_kernels.h"
#include "core/parallel.h"
#include "kernels/gemm.h"
#include "kernels/gemm_q8.h"

namespace {

enum Kind { kF32, kBF16, kF16, kQ8, kQ8Avx2, kOpenBlas };

std::vector<float> random_vector(size_t n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

void BM_Gemm(benchmark::State& state) {
  const auto kind = static_cast<Kind>(state.range(0));
  const int64_t m = state.range(1), n = state.range(2), k = state.range(3);
  const auto a = random_vector(size_t(m * k), 1, 1.0f);
  const auto w = random_vector(size_t(n * k), 2, 0.03f);
  std::vector<float> c(size_t(m * n));
  const sift::PackedType type = kind == kBF16 ? sift::PackedType::BF16
                                : kind == kF16 ? sift::PackedType::F16
                                : kind == kQ8 || kind == kQ8Avx2 ? sift::PackedType::Q8
                                                                 : sift::PackedType::F32;
  const sift::PackedMatrix packed = sift::PackedMatrix::from_row_major(w.data(), n, k, type);
  openblas_set_num_threads(sift::n_threads());
  for (auto _ : state) {
    if (kind == kOpenBlas)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(m), int(n), int(k), 1.0f, a.data(), int(k), w.data(),
                  int(k), 0.0f, c.data(), int(n));
    else if (kind == kQ8Avx2)
      sift::gemm_q8(a.data(), m, k, packed, c.data(), n, sift::Q8Kernel::Avx2);
    else
      sift::gemm(a.data(), m, k, packed, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(m) * n * k * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["weight_MiB"] = double(packed.bytes()) / (1 << 20);
  static const char* names[] = {"f32", "bf16", "f16", "q8", "q8-avx2", "openblas"};
  state.SetLabel(names[kind]);
}

void shapes(benchmark::internal::Benchmark* b) {
  for (int64_t m : {512, 28})
    for (auto [n, k] : {std::pair<int64_t, int64_t>{2048, 1024}, {6144, 1024}, {1024, 3072}})
      for (int kind = kF32; kind <= kOpenBlas; ++kind) b->Args({kind, m, n, k});
}

BENCHMARK(BM_Gemm)->Apply(shapes)->ArgNames({"kind", "m", "n", "k"})->MeasureProcessCPUTime()->MinTime(0.5);

}  // namespace

int main(int argc, char** argv) {
  sift::rerun_with_cpu_blas_kernels();  // OpenBLAS's own kernels for this CPU, not its generic ones
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
