// Prefill speed of the CPU forward pass, next to a plain large sgemm (OpenBLAS) measured in
// the same run: the ratio is what bench/results/ reports, since absolute numbers move with
// the machine.
//
//   bench_prefill MODEL_DIR [--tokens 128,512,2048] [--repeats 3] [--weights auto|f32|bf16|q8]
//
// Besides sift's F32 gemm (and, on an AVX-512 CPU, the same with the AVX2 register tile) it
// times the same 2048^3 product with the weights held in BF16 (widened in the kernel), in BF16
// compute (each kernel the CPU has: AMX "bf16-amx", AVX512_BF16 "bf16-dot") and in Q8 (int8
// dot products: the best kernel, the 256-bit VNNI one where the CPU has it, AVX2).
//
// FLOPs of a prefill of T tokens (causal): 2 T (matmul weights of all layers) for the
// projections + per layer and head 2 * 2 * head_dim * T(T+1)/2 for scores and values
// + 2 H V for the one logit row.
//
// Beside each prefill it times the narrow GEMMs alone: every layer's four projections (qkv,
// o, gate_up, down) with the model's own packed weights at M = T, as the forward pass calls
// them; "outside" is the rest of the prefill's time (attention, norms, RoPE, activations,
// residuals; the activation rounding or quantization happens inside the GEMM calls, so it
// counts as theirs). bench/vs_llama_cpp.sh reads the GEMMs' time at the row's token count.
#include <cblas.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/blas_kernels.h"
#include "core/parallel.h"
#include "kernels/cpu_features.h"
#include "kernels/gemm.h"
#include "kernels/gemm_bf16.h"
#include "kernels/gemm_q8.h"
#include "kernels/micro_tile.h"
#include "model/model.h"
#include "model/session.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <typename Fn>
double median_seconds(int repeats, Fn&& fn) {
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    times.push_back(seconds_since(start));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double peak_rss_gib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / (1024.0 * 1024.0);
}

std::vector<int> parse_list(const std::string& text) {
  std::vector<int> values;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    values.push_back(std::stoi(text.substr(begin, end - begin)));
    begin = end + 1;
  }
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  sift::rerun_with_cpu_blas_kernels();  // the yardstick with OpenBLAS's kernels for this CPU, not its generic ones
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL_DIR [--tokens 128,512,2048] [--repeats 3] [--weights auto|f32|bf16|q8]\n",
                 argv[0]);
    return 2;
  }
  std::vector<int> token_counts = {128, 512, 2048};
  int repeats = 3;
  sift::WeightStorage storage = sift::WeightStorage::Auto;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--tokens") token_counts = parse_list(argv[i + 1]);
    else if (flag == "--repeats") repeats = std::stoi(argv[i + 1]);
    else if (flag == "--weights") {
      const auto parsed = sift::parse_weight_storage(argv[i + 1]);
      if (!parsed) {
        std::fprintf(stderr, "--weights %s: expected auto, f32, bf16 or q8\n", argv[i + 1]);
        return 2;
      }
      storage = *parsed;
    }
  }
  const int threads = sift::n_threads();
  openblas_set_num_threads(threads);

  // The yardstick: OpenBLAS sgemm 2048 x 2048 x 2048.
  const int n = 2048;
  std::vector<float> a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  for (auto* v : {&a, &b})
    for (float& x : *v) x = normal(rng);
  const double flops_sq = 2.0 * n * n * double(n);
  const double blas_s = median_seconds(repeats, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
  });
  const sift::PackedMatrix packed = sift::PackedMatrix::from_row_major(b.data(), n, n);
  const double sift_gemm_s = median_seconds(repeats, [&] { sift::gemm(a.data(), n, n, packed, c.data(), n); });
  const double blas_gflops = flops_sq / blas_s / 1e9;
  std::printf("openblas kernels: %s\n", sift::blas_kernels_in_use().c_str());
  std::printf("threads %d\nopenblas sgemm %dx%dx%d: %.1f GFLOP/s\nsift gemm      %dx%dx%d: %.1f GFLOP/s (%.0f%% of sgemm)\n",
              threads, n, n, n, blas_gflops, n, n, n, flops_sq / sift_gemm_s / 1e9,
              100.0 * blas_s / sift_gemm_s);
  const auto time_gemm = [&](const sift::PackedMatrix& w, const char* name, auto&& run) {
    const double seconds = median_seconds(repeats, [&] { run(w); });
    std::printf("sift %-9s gemm %dx%dx%d: %.1f GFLOP/s (%.0f%% of sgemm, %.2fx sift f32 gemm)\n", name, n, n, n,
                flops_sq / seconds / 1e9, 100.0 * blas_s / seconds, sift_gemm_s / seconds);
  };
  const auto plain = [&](const sift::PackedMatrix& w) { sift::gemm(a.data(), n, n, w, c.data(), n); };
  if (sift::tile_isa() == sift::TileIsa::Avx512) {  // the AVX2 tile too, for the ratio
    sift::set_tile_isa(sift::TileIsa::Avx2);
    time_gemm(packed, "avx2-tile", plain);
    sift::set_tile_isa(sift::TileIsa::Avx512);
  }
  time_gemm(sift::PackedMatrix::from_row_major(b.data(), n, n, sift::PackedType::BF16), "bf16", plain);
  if (sift::bf16_kernel() != sift::Bf16Kernel::None) {  // BF16 compute, with each kernel the CPU has
    const sift::PackedMatrix dot = sift::PackedMatrix::from_row_major(b.data(), n, n, sift::PackedType::BF16Dot);
    const sift::Bf16Kernel chosen = sift::bf16_kernel();
    for (const auto& [kernel, name] : {std::pair{sift::Bf16Kernel::Amx, "bf16-amx"},
                                       std::pair{sift::Bf16Kernel::Avx512Bf16, "bf16-dot"}}) {
      if (!sift::bf16_kernel_available(kernel)) continue;
      sift::set_bf16_kernel(kernel);
      time_gemm(dot, name, plain);
    }
    sift::set_bf16_kernel(chosen);
  }
  const sift::PackedMatrix q8 = sift::PackedMatrix::from_row_major(b.data(), n, n, sift::PackedType::Q8);
  time_gemm(q8, "q8", plain);
  if (sift::cpu_has_avx_vnni())
    time_gemm(q8, "q8-vnni256", [&](const sift::PackedMatrix& w) {
      sift::gemm_q8(a.data(), n, n, w, c.data(), n, sift::Q8Kernel::AvxVnni);
    });
  time_gemm(q8, "q8-avx2", [&](const sift::PackedMatrix& w) {
    sift::gemm_q8(a.data(), n, n, w, c.data(), n, sift::Q8Kernel::Avx2);
  });
  a = b = c = {};

  auto model = sift::Model::load(argv[1], storage);
  const sift::ModelConfig& cfg = model->config();
  const double layer_weights = double(cfg.hidden_size) * (cfg.q_dim() + 2 * cfg.kv_dim()) +
                               double(cfg.q_dim()) * cfg.hidden_size + 3.0 * cfg.hidden_size * cfg.intermediate_size;
  std::printf("model %s: %lld layers, hidden %lld, vocab %lld; weights %s, %.2f GiB resident; peak RSS after load "
              "%.2f GiB (F32 weights %.2f GiB)\n",
              std::string(cfg.architecture->hf_name).c_str(), (long long)cfg.n_layers, (long long)cfg.hidden_size,
              (long long)cfg.vocab_size, std::string(sift::weight_storage_name(storage)).c_str(),
              model->weights().bytes() / double(1 << 30), peak_rss_gib(),
              (layer_weights * cfg.n_layers + double(cfg.vocab_size) * cfg.hidden_size * (cfg.tie_word_embeddings ? 1 : 2)) *
                  4 / (1 << 30));
  std::printf("| tokens | median s | tokens/s | GFLOP/s | %% of sgemm | narrow GEMMs s | outside the GEMMs |\n"
              "|---|---|---|---|---|---|---|\n");
  for (int T : token_counts) {
    std::vector<int32_t> ids(T), positions(T);
    for (int t = 0; t < T; ++t) ids[t] = static_cast<int32_t>(rng() % cfg.vocab_size);
    std::iota(positions.begin(), positions.end(), 0);
    const std::vector<int32_t> last = {T - 1};
    const sift::Segment whole[1] = {{0, T, 0, 0}};
    const sift::ForwardRequest request{ids, positions, whole, last, {}};
    sift::Session session(*model);
    const double s = median_seconds(repeats, [&] {
      session.forward(request);
      session.truncate(0);
    });
    const double flops = 2.0 * T * layer_weights * cfg.n_layers +
                         4.0 * cfg.head_dim * (double(T) * (T + 1) / 2) * cfg.n_heads * cfg.n_layers +
                         2.0 * cfg.hidden_size * cfg.vocab_size;
    // The projections alone, in the forward pass's order, on activations of the right shape.
    const int64_t widest_in = std::max({cfg.hidden_size, cfg.q_dim(), cfg.intermediate_size});
    const int64_t widest_out = std::max(cfg.q_dim() + 2 * cfg.kv_dim(), 2 * cfg.intermediate_size);
    std::vector<float> x(size_t(T) * widest_in), y(size_t(T) * widest_out);
    for (float& v : x) v = normal(rng);
    const double gemm_s = median_seconds(repeats, [&] {
      for (const sift::LayerWeights& layer : model->weights().layers)
        for (const sift::PackedMatrix* w : {&layer.qkv, &layer.o, &layer.gate_up, &layer.down})
          sift::gemm(x.data(), T, w->cols(), *w, y.data(), w->rows());
    });
    std::printf("| %d | %.3f | %.0f | %.1f | %.0f%% | %.3f | %.0f%% |\n", T, s, T / s, flops / s / 1e9,
                100.0 * flops / s / 1e9 / blas_gflops, gemm_s, 100.0 * (1.0 - gemm_s / s));
    std::fflush(stdout);
  }
  std::printf("peak RSS %.2f GiB\n", peak_rss_gib());
  return 0;
}
