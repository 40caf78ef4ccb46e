// The CPU's arithmetic peak, the yardstick bench/vs_llama_cpp.sh divides every configuration's
// end-to-end GFLOP/s by.
//
//   bench_fma_peak [--threads N] [--seconds S]
//
// Each kind runs independent dependency chains of one instruction in a loop written in
// inline assembly, on every thread at once (OpenMP, OMP_NUM_THREADS or --threads), and
// prints GFLOP/s of wall time for all threads together and per thread, and GFLOP per second
// of a thread's own CPU time (a core's rate while it runs, which other load on the machine
// does not dilute):
//
//   fma-zmm   16 chains of vfmadd231ps on 512-bit registers: 32 FLOP per instruction
//   fma-ymm   12 chains of vfmadd231ps on 256-bit registers: 16 FLOP per instruction
//   bf16-zmm  16 chains of vdpbf16ps (AVX512_BF16): 16 lanes x 2 products, 64 FLOP each
//   vnni-zmm  16 chains of vpdpbusd on 512-bit registers (AVX-512 VNNI): 16 lanes x 4 int8
//             products, 128 operations each (a multiply and an add apiece, counted as FLOP are,
//             so the Q8 gemm's rate divides by it like the float kernels' by theirs)
//   vnni-ymm  12 chains of the VEX vpdpbusd on 256-bit registers (AVX-VNNI): 64 operations each
//   amx-bf16  4 chains of tdpbf16ps on 16 x 16 tiles (AMX-BF16, where Linux grants the tile
//             state): 16 x 16 x 32 products, 16384 FLOP each; operands in tiles, not loaded
//
// The chains are in assembly so the compiler can neither drop nor merge them (a C++ loop of
// fma intrinsics whose results are unused loses all but one chain); 12 or 16 chains keep
// both FMA pipes busy through a 4-5 cycle latency. The operands are normal numbers, so no
// denormal assist slows a chain: acc += 1.0 * 1e-7.
#include <omp.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernels/cpu_features.h"

namespace {

constexpr long kBatch = 1 << 16;  // loop iterations per timed call

#define SIFT_FMA16(op, reg)                                                                                 \
  op " %%" reg "16, %%" reg "17, %%" reg "0\n\t" op " %%" reg "16, %%" reg "17, %%" reg "1\n\t" op            \
     " %%" reg "16, %%" reg "17, %%" reg "2\n\t" op " %%" reg "16, %%" reg "17, %%" reg "3\n\t" op            \
     " %%" reg "16, %%" reg "17, %%" reg "4\n\t" op " %%" reg "16, %%" reg "17, %%" reg "5\n\t" op            \
     " %%" reg "16, %%" reg "17, %%" reg "6\n\t" op " %%" reg "16, %%" reg "17, %%" reg "7\n\t" op            \
     " %%" reg "16, %%" reg "17, %%" reg "8\n\t" op " %%" reg "16, %%" reg "17, %%" reg "9\n\t" op            \
     " %%" reg "16, %%" reg "17, %%" reg "10\n\t" op " %%" reg "16, %%" reg "17, %%" reg "11\n\t" op          \
     " %%" reg "16, %%" reg "17, %%" reg "12\n\t" op " %%" reg "16, %%" reg "17, %%" reg "13\n\t" op          \
     " %%" reg "16, %%" reg "17, %%" reg "14\n\t" op " %%" reg "16, %%" reg "17, %%" reg "15\n\t"

// Sets zmm0..15 to 0 (the accumulators) and zmm16, zmm17 to the broadcast operands.
#define SIFT_ZERO16                                                                                          \
  "vpxord %%zmm0, %%zmm0, %%zmm0\n\t vmovaps %%zmm0, %%zmm1\n\t vmovaps %%zmm0, %%zmm2\n\t"                  \
  "vmovaps %%zmm0, %%zmm3\n\t vmovaps %%zmm0, %%zmm4\n\t vmovaps %%zmm0, %%zmm5\n\t"                        \
  "vmovaps %%zmm0, %%zmm6\n\t vmovaps %%zmm0, %%zmm7\n\t vmovaps %%zmm0, %%zmm8\n\t"                        \
  "vmovaps %%zmm0, %%zmm9\n\t vmovaps %%zmm0, %%zmm10\n\t vmovaps %%zmm0, %%zmm11\n\t"                      \
  "vmovaps %%zmm0, %%zmm12\n\t vmovaps %%zmm0, %%zmm13\n\t vmovaps %%zmm0, %%zmm14\n\t"                     \
  "vmovaps %%zmm0, %%zmm15\n\t vbroadcastss %[x], %%zmm16\n\t vbroadcastss %[y], %%zmm17\n\t"

#define SIFT_CLOBBER_ZMM                                                                                     \
  "zmm0", "zmm1", "zmm2", "zmm3", "zmm4", "zmm5", "zmm6", "zmm7", "zmm8", "zmm9", "zmm10", "zmm11", "zmm12", \
      "zmm13", "zmm14", "zmm15", "zmm16", "zmm17", "cc"

// One function per instruction: 16 chains, each one instruction per loop iteration.
#define SIFT_ZMM_CHAINS(name, op, isa)                                                        \
  __attribute__((target(isa))) void name(long n) {                                            \
    const float x = 1.0f, y = 1e-7f;                                                          \
    asm volatile(SIFT_ZERO16 "1:\n\t" SIFT_FMA16(op, "zmm") "dec %[n]\n\t jnz 1b\n\t"          \
                 : [n] "+r"(n)                                                                \
                 : [x] "m"(x), [y] "m"(y)                                                     \
                 : SIFT_CLOBBER_ZMM);                                                         \
  }
// 16 x 16 lanes x 2 FLOP per iteration.
SIFT_ZMM_CHAINS(fma_zmm, "vfmadd231ps", "avx512f")
// 16 x 16 lanes x 2 products x 2 FLOP per iteration (each 32-bit lane holds a pair of BF16
// halves of 1.0 and 1e-7: normal numbers or zeros).
SIFT_ZMM_CHAINS(dpbf16_zmm, "vdpbf16ps", "avx512f,avx512bf16")

// 16 x 16 lanes x 4 products x 2 operations per iteration (the integers wrap; their values
// do not matter to the rate).
SIFT_ZMM_CHAINS(vnni_zmm, "vpdpbusd", "avx512f,avx512vnni")

#define SIFT_FMA12_YMM(op)                                                                              \
  op " %%ymm12, %%ymm13, %%ymm0\n\t" op " %%ymm12, %%ymm13, %%ymm1\n\t" op " %%ymm12, %%ymm13, %%ymm2\n\t" \
  op " %%ymm12, %%ymm13, %%ymm3\n\t" op " %%ymm12, %%ymm13, %%ymm4\n\t" op " %%ymm12, %%ymm13, %%ymm5\n\t" \
  op " %%ymm12, %%ymm13, %%ymm6\n\t" op " %%ymm12, %%ymm13, %%ymm7\n\t" op " %%ymm12, %%ymm13, %%ymm8\n\t" \
  op " %%ymm12, %%ymm13, %%ymm9\n\t" op " %%ymm12, %%ymm13, %%ymm10\n\t" op " %%ymm12, %%ymm13, %%ymm11\n\t"

// 12 chains on 256-bit registers, VEX encoding: ymm0..11 accumulate, ymm12, ymm13 operands.
#define SIFT_YMM_CHAINS(name, op, isa)                                                                      \
  __attribute__((target(isa))) void name(long n) {                                                          \
    const float x = 1.0f, y = 1e-7f;                                                                        \
    asm volatile(                                                                                           \
        "vxorps %%ymm0, %%ymm0, %%ymm0\n\t vmovaps %%ymm0, %%ymm1\n\t vmovaps %%ymm0, %%ymm2\n\t"           \
        "vmovaps %%ymm0, %%ymm3\n\t vmovaps %%ymm0, %%ymm4\n\t vmovaps %%ymm0, %%ymm5\n\t"                 \
        "vmovaps %%ymm0, %%ymm6\n\t vmovaps %%ymm0, %%ymm7\n\t vmovaps %%ymm0, %%ymm8\n\t"                 \
        "vmovaps %%ymm0, %%ymm9\n\t vmovaps %%ymm0, %%ymm10\n\t vmovaps %%ymm0, %%ymm11\n\t"               \
        "vbroadcastss %[x], %%ymm12\n\t vbroadcastss %[y], %%ymm13\n\t"                                    \
        "1:\n\t" SIFT_FMA12_YMM(op) "dec %[n]\n\t jnz 1b\n\t"                                               \
        : [n] "+r"(n)                                                                                       \
        : [x] "m"(x), [y] "m"(y)                                                                            \
        : "ymm0", "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7", "ymm8", "ymm9", "ymm10", "ymm11", \
          "ymm12", "ymm13", "cc");                                                                          \
  }
// 12 x 8 lanes x 2 FLOP per iteration.
SIFT_YMM_CHAINS(fma_ymm, "vfmadd231ps", "avx2,fma")
// 12 x 8 lanes x 4 products x 2 operations per iteration: the VEX form ({vex}), which the
// AVX-VNNI kernel of kernels/gemm_q8.cpp runs.
SIFT_YMM_CHAINS(vnni_ymm, "%{vex%} vpdpbusd", "avx2,avxvnni")

// 4 x 16384 FLOP per iteration: C tiles tmm0..3 += A (tmm4, tmm5) x B (tmm6, tmm7), all zeros.
struct alignas(64) TileConfig {
  uint8_t palette = 1, start_row = 0, reserved[14] = {};
  uint16_t bytes_per_row[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};
void amx_bf16(long n) {
  static const TileConfig config;
  asm volatile(
      "ldtilecfg %[config]\n\t"
      "tilezero %%tmm0\n\t tilezero %%tmm1\n\t tilezero %%tmm2\n\t tilezero %%tmm3\n\t"
      "tilezero %%tmm4\n\t tilezero %%tmm5\n\t tilezero %%tmm6\n\t tilezero %%tmm7\n\t"
      "1:\n\t"
      "tdpbf16ps %%tmm6, %%tmm4, %%tmm0\n\t tdpbf16ps %%tmm7, %%tmm4, %%tmm1\n\t"
      "tdpbf16ps %%tmm6, %%tmm5, %%tmm2\n\t tdpbf16ps %%tmm7, %%tmm5, %%tmm3\n\t"
      "dec %[n]\n\t jnz 1b\n\t"
      "tilerelease\n\t"
      : [n] "+r"(n)
      : [config] "m"(config)
      : "cc");
}

bool amx_granted() {  // arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)
  return sift::cpu_has_amx_bf16() && syscall(SYS_arch_prctl, 0x1023, 18) == 0;
}

struct Kind {
  const char* name;
  void (*run)(long);
  double flop_per_iteration;
  bool available;
};

struct Rate {
  double all_threads;     // GFLOP/s of wall time, all threads together (the slowest thread's time)
  double per_cpu_second;  // GFLOP per second of one thread's own CPU time: what a core does while it
                          // runs, whatever else the machine runs
};

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// All threads running `kind` at once for about `seconds`.
Rate measure(const Kind& kind, double seconds) {
  kind.run(kBatch);  // warm up: the vector unit's power state, the page of the loop
  long batches = 1;
  for (;;) {  // calibrate on one thread: batches per `seconds`
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < batches; ++i) kind.run(kBatch);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s > seconds / 4) {
      batches = static_cast<long>(batches * seconds / s) + 1;
      break;
    }
    batches *= 2;
  }
  double slowest = 0.0, most_cpu = 0.0;
  int threads = 1;
#pragma omp parallel reduction(max : slowest, most_cpu)
  {
#pragma omp single
    threads = omp_get_num_threads();
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = thread_cpu_seconds();
    for (long i = 0; i < batches; ++i) kind.run(kBatch);
    most_cpu = thread_cpu_seconds() - cpu_start;
    slowest = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const double flop_per_thread = kind.flop_per_iteration * kBatch * batches;
  return {flop_per_thread * threads / slowest / 1e9, flop_per_thread / most_cpu / 1e9};
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 1.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--threads") omp_set_num_threads(std::atoi(argv[i + 1]));
    else if (flag == "--seconds") seconds = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--seconds S]\n", argv[0]);
      return 2;
    }
  }
  const Kind kinds[] = {
      {"fma-zmm", fma_zmm, 16 * 16 * 2, sift::cpu_has_avx512f()},
      {"fma-ymm", fma_ymm, 12 * 8 * 2, sift::cpu_has_avx2_fma()},
      {"bf16-zmm", dpbf16_zmm, 16 * 16 * 4, sift::cpu_has_avx512_bf16()},
      {"vnni-zmm", vnni_zmm, 16 * 16 * 4 * 2, sift::cpu_has_avx512_vnni()},
      {"vnni-ymm", vnni_ymm, 12 * 8 * 4 * 2, sift::cpu_has_avx_vnni()},
      {"amx-bf16", amx_bf16, 4 * 16 * 16 * 32 * 2, amx_granted()},
  };
  const int threads = omp_get_max_threads();
  std::printf("threads %d\n", threads);
  for (const Kind& kind : kinds) {
    if (!kind.available) {
      std::printf("%-9s not on this CPU\n", kind.name);
      continue;
    }
    const Rate rate = measure(kind, seconds);
    std::printf("%-9s %.1f GFLOP/s (%.1f per thread; %.1f per CPU-second)\n", kind.name, rate.all_threads,
                rate.all_threads / threads, rate.per_cpu_second);
    std::fflush(stdout);
  }
  return 0;
}
