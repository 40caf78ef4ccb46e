// The BF16 x BF16 product (kernels/gemm_bf16.h): the chains are stated there.
#include "kernels/gemm_bf16.h"

#include <immintrin.h>
#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/parallel.h"
#include "kernels/bf16_tile.h"
#include "kernels/cache_sizes.h"
#include "kernels/cpu_features.h"
#include "kernels/tile_target.h"
#include "kernels/transpose8x8.h"

namespace sift {
namespace {

constexpr int64_t kNr = PackedMatrix::kPanelWidth;  // 16 columns per panel
constexpr int64_t kBlock = PackedMatrix::kBf16Block;  // 32 k: one AMX tile's depth
constexpr int64_t kPairRow = 2 * kNr;                 // bf16 per k pair of a panel: 32 (64 bytes)
constexpr int64_t kBlockElements = kBlock * kNr;      // bf16 per block of a panel: 512 (1 KB)
constexpr int64_t kRowPadding = 96;  // A's rows are padded with zeros to a multiple of both kernels' tile heights

// ---- one element, plainly: the reference ----------------------------------------------------

float widen(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }
float flush_denormal(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
// fma and add as the BF16 instructions do them: denormal operands as zeros, round to nearest
// even, a denormal result flushed to a zero of its sign.
float fma_daz_ftz(float a, float b, float c) {
  return flush_denormal(std::fma(flush_denormal(a), flush_denormal(b), flush_denormal(c)));
}
float add_daz_ftz(float a, float b) { return flush_denormal(flush_denormal(a) + flush_denormal(b)); }

// Row n of W against `a` (K2 values of a rounded row of A) by `kernel`'s chain.
float dot_reference(const uint16_t* a, const PackedMatrix& w, int64_t n, Bf16Kernel kernel) {
  const uint16_t* pairs = w.bf16_panel(n / kNr) + (n % kNr) * 2;  // W[n][k] at pairs[(k / 2) * 32 + k % 2]
  const auto w_word = [&](int64_t k) { return pairs[(k / 2) * kPairRow + k % 2]; };
  const auto w_at = [&](int64_t k) { return widen(w_word(k)); };
  const int64_t k2 = w.panel_depth();
  float c = 0.0f;
  if (kernel == Bf16Kernel::Amx) {
    for (int64_t b = 0; b < k2; b += kBlock) {
      float even = 0.0f, odd = 0.0f;
      for (int64_t k = b; k < b + kBlock; k += 2) {
        even = fma_daz_ftz(widen(a[k]), w_at(k), even);
        odd = fma_daz_ftz(widen(a[k + 1]), w_at(k + 1), odd);
      }
      c = add_daz_ftz(c, add_daz_ftz(even, odd));
    }
  } else {
    for (int64_t k = 0; k < k2; k += 2) c = bf16_pair_fma(a[k], a[k + 1], w_word(k), w_word(k + 1), c);
  }
  return c;
}

// out (K2) = row a (K floats) rounded, zeros past K.
void round_row_plain(const float* a, int64_t k, int64_t k2, uint16_t* out) {
  for (int64_t i = 0; i < k2; ++i) out[i] = i < k ? bf16_round(a[i]) : 0;
}

__attribute__((target("avx512f,avx512bw,avx512bf16"))) void round_row_avx512(const float* a, int64_t k, int64_t k2,
                                                                              uint16_t* out) {
  int64_t i = 0;
  for (; i + 16 <= k; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(_mm512_loadu_ps(a + i))));
  if (i < k) {  // the last values and zeros up to 16 (zeros round to zeros)
    const __m512 x = _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << (k - i)) - 1), a + i);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(x)));
    i += 16;
  }
  for (; i < k2; i += 16) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_setzero_si256());
}

// ---- AVX512_BF16: a register tile of 12 rows x 16 V columns --------------------------------
//
// A is rounded and packed once per call, shared by the threads, into micro-panels of 12 rows,
// k-pair-major: word (j, r) of micro-panel u (the BF16 pair a[2j], a[2j+1] of row 12u + r, the
// even k in the low half) at packed[((u * n_pairs + j) * 12 + r) * 2]. A tile's 12 broadcasts
// per pair then read 48 consecutive bytes, one stream (row-major A made 12 streams and 12 row
// addresses, more than the integer registers hold). Rows past M are zeros.
//
// The tile: 12 rows x 32 columns (V = 2) in 24 zmm accumulators, per k pair 2 loads of B,
// 12 broadcasts of A and 24 vdpbf16ps: enough independent chains to cover the instruction's
// latency on both FMA pipes (6 x 32, 12 chains, left Zen 5 at ~55% of its vdpbf16ps rate).
// Per element the chain is the same in either tile (pairs in order, from C), so the tile's
// shape changes no bit.

constexpr int64_t kMr = 12;           // rows per micro-panel and tile
static_assert(kMr == kBf16TileRows, "bf16_tile.h states the micro-panel's height");
constexpr int64_t kSlicePairs = 256;  // k pairs per K slice: a micro-panel's slice (12 KB) stays in L1
                                      // while the column block's panel slices (16 KB each) stream from L2

int32_t load_word(const uint16_t* p) {
  int32_t word;
  std::memcpy(&word, p, 4);
  return word;
}

// Rows 0..rows-1 of a (row stride lda floats, k floats each; rows past `rows` and k past `k`
// zero) rounded into one panel of kRows rows (12: A's micro-panel; 16: attention's key panel)
// and n_pairs = k2 / 2 pairs at out, pair j of row r at out[(j * kRows + r) * 2]. Per 8 pairs
// (16 k), the rows' rounded pairs are 8 words each; two 8 x 8 transposes of words (rows 0-7,
// rows 8-15, zeros past kRows) turn them into the pairs' kRows-word groups.
template <int64_t kRows>
__attribute__((target("avx512f,avx512bw,avx512bf16"))) void pack_pair_panel(const float* a, int64_t lda, int64_t rows,
                                                                             int64_t k, int64_t k2, uint16_t* out) {
  static_assert(kRows == 12 || kRows == 16);
  for (int64_t k0 = 0; k0 < k2; k0 += 16) {
    const __mmask16 mask = k0 + 16 <= k ? __mmask16(0xFFFF) : k0 >= k ? __mmask16(0) : __mmask16((1u << (k - k0)) - 1);
    __m256 words[2][8];  // [half][row % 8]: 8 pairs of a row as 8 floats' bits
    for (int64_t r = 0; r < 16; ++r) {
      const __m512 x = r < rows ? _mm512_maskz_loadu_ps(mask, a + r * lda + k0) : _mm512_setzero_ps();
      words[r / 8][r % 8] = r < kRows ? _mm256_castsi256_ps(reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(x)))
                                      : _mm256_setzero_ps();
    }
    __m256 lo[8], hi[8];  // lo[j]: pair k0/2 + j of rows 0-7; hi[j]: of rows 8-15
    transpose8x8(words[0], lo);
    transpose8x8(words[1], hi);
    uint16_t* dst = out + (k0 / 2) * kRows * 2;
    for (int j = 0; j < 8; ++j, dst += kRows * 2) {
      _mm256_storeu_ps(reinterpret_cast<float*>(dst), lo[j]);
      if constexpr (kRows == 16) _mm256_storeu_ps(reinterpret_cast<float*>(dst + 16), hi[j]);
      else _mm_storeu_ps(reinterpret_cast<float*>(dst + 16), _mm256_castps256_ps128(hi[j]));
    }
  }
}

// GCC 12's AVX-512 headers start some results from _mm512_undefined and then warn that they
// may be used uninitialized (GCC bug 105593); they are not.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// C[0..rows)[0..n_valid) (+)= the chains over n_pairs k pairs: a is the micro-panel's first
// pair of the slice (pair j's 12 words at a + 24 j), b panel p's first pair, b + b_next panel
// p + 1's. Per pair, lane j of vdpbf16ps adds a's odd product and then its even one to column
// j's chain.
template <int V>
__attribute__((target("avx512f,avx512bw,avx512bf16"))) void tile_dpbf16(const uint16_t* a, const uint16_t* b,
                                                                         int64_t b_next, int64_t n_pairs, bool first,
                                                                         float* c, int64_t ldc, int64_t rows,
                                                                         int64_t n_valid) {
  TileTarget<kMr, V * kNr> target(c, ldc, rows, n_valid, first);
  __m512 acc[kMr][V];
#pragma GCC unroll 12
  for (int r = 0; r < kMr; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) acc[r][v] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(target.row(r) + v * kNr);
  for (int64_t j = 0; j < n_pairs; ++j, a += 2 * kMr, b += kPairRow) {
    __m512i bj[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) bj[v] = _mm512_loadu_si512(b + v * b_next);
#pragma GCC unroll 12
    for (int r = 0; r < kMr; ++r) {
      const __m512i ar = _mm512_set1_epi32(load_word(a + 2 * r));
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v)
        acc[r][v] = _mm512_dpbf16_ps(acc[r][v], reinterpret_cast<__m512bh>(ar), reinterpret_cast<__m512bh>(bj[v]));
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < kMr; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) _mm512_storeu_ps(target.row(r) + v * kNr, acc[r][v]);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The next tile's rows of C into L1 while this one computes (C is wider than L2 at the
// MLP's shapes, and every K slice reads it again).
void prefetch_c(const float* c, int64_t ldc, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) {
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + kNr), _MM_HINT_T0);
  }
}

// Panels per column block: their slices (kSlicePairs pairs x 64 bytes = 16 KB each) fill a
// quarter of L2, where they stay while every micro-panel of the row block passes over them.
int64_t column_block_panels() {
  static const int64_t panels = [] {
    const int64_t l2 = cache_sizes().l2, slice = kSlicePairs * kPairRow * 2;
    return l2 <= 0 ? 16 : std::clamp(l2 / 4 / slice / 2 * 2, int64_t{2}, int64_t{64});  // whole panel pairs
  }();
  return panels;
}

// ---- AMX: 2 x 2 tiles of 16 x 16 floats ------------------------------------------------------
//
// tmm0..3 hold C (rows 0-15 | 16-31 x columns 0-15 | 16-31), tmm4 and 5 A (16 rows x 32 k),
// tmm6 and 7 B (16 k pairs x 16 columns x 2): every tile 16 rows of 64 bytes. The tile
// instructions are written out (GCC 12's intrinsics tell the compiler that ldtilecfg reads 8
// bytes of the configuration and that tile loads and stores touch no memory, so it may drop
// or move the stores around them); each load and store is a compiler memory barrier.

struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {};
  uint8_t rows[16] = {};
};

const TileConfig& tile_config() {
  static const TileConfig config = [] {
    TileConfig c;
    for (int t = 0; t < 8; ++t) c.bytes_per_row[t] = 64, c.rows[t] = 16;
    return c;
  }();
  return config;
}

#define SIFT_TILE_LOAD(t, base, stride) \
  asm volatile("tileloadd (%0,%1,1), %%tmm" #t ::"r"(base), "r"(static_cast<int64_t>(stride)) : "memory")
#define SIFT_TILE_STORE(t, base, stride) \
  asm volatile("tilestored %%tmm" #t ", (%0,%1,1)" ::"r"(base), "r"(static_cast<int64_t>(stride)) : "memory")
#define SIFT_TILE_ZERO(t) asm volatile("tilezero %%tmm" #t ::)
#define SIFT_TILE_DPBF16PS(c, a, b) asm volatile("tdpbf16ps %%tmm" #b ", %%tmm" #a ", %%tmm" #c ::)

void load_tile_config() { asm volatile("ldtilecfg %0" ::"m"(tile_config())); }
void release_tiles() { asm volatile("tilerelease" ::); }

// C[0..rows)[0..n_valid) (rows <= 32, n_valid <= 16 V) (+)= 32 rows of A (a: their first
// block, row stride a_bytes bytes; rows past `rows` are zeros) by nb blocks of V panels (b:
// panel p's first block, b + b_next panel p + 1's).
template <int V>
void amx_block(const uint16_t* a, int64_t a_bytes, const uint16_t* b, int64_t b_next, int64_t nb, bool first, float* c,
               int64_t ldc, int64_t rows, int64_t n_valid) {
  TileTarget<2 * 16, V * kNr> target(c, ldc, rows, n_valid, first);
  float* const top = target.row(0);
  float* const bottom = target.row(16);
  const int64_t c_bytes = target.stride() * int64_t{sizeof(float)};
  const int64_t a_next = 16 * a_bytes;  // rows 16..31
  if (first) {
    SIFT_TILE_ZERO(0);
    SIFT_TILE_ZERO(2);
    if (V == 2) {
      SIFT_TILE_ZERO(1);
      SIFT_TILE_ZERO(3);
    }
  } else {
    SIFT_TILE_LOAD(0, top, c_bytes);
    SIFT_TILE_LOAD(2, bottom, c_bytes);
    if (V == 2) {
      SIFT_TILE_LOAD(1, top + kNr, c_bytes);
      SIFT_TILE_LOAD(3, bottom + kNr, c_bytes);
    }
  }
  for (int64_t kb = 0; kb < nb; ++kb, a += kBlock, b += kBlockElements) {
    SIFT_TILE_LOAD(4, a, a_bytes);
    SIFT_TILE_LOAD(5, reinterpret_cast<const char*>(a) + a_next, a_bytes);
    SIFT_TILE_LOAD(6, b, 64);
    if (V == 2) SIFT_TILE_LOAD(7, b + b_next, 64);
    SIFT_TILE_DPBF16PS(0, 4, 6);
    if (V == 2) SIFT_TILE_DPBF16PS(1, 4, 7);
    SIFT_TILE_DPBF16PS(2, 5, 6);
    if (V == 2) SIFT_TILE_DPBF16PS(3, 5, 7);
  }
  SIFT_TILE_STORE(0, top, c_bytes);
  SIFT_TILE_STORE(2, bottom, c_bytes);
  if (V == 2) {
    SIFT_TILE_STORE(1, top + kNr, c_bytes);
    SIFT_TILE_STORE(3, bottom + kNr, c_bytes);
  }
}

#undef SIFT_TILE_LOAD
#undef SIFT_TILE_STORE
#undef SIFT_TILE_ZERO
#undef SIFT_TILE_DPBF16PS

constexpr int64_t kAmxRows = 32;           // rows per AMX block: two A tiles
constexpr int64_t kAmxSliceBlocks = 128;   // blocks per K slice: 4096 k, so most K are one slice and C is
                                           // written once

// ---- the kernel choice -------------------------------------------------------------------------

constexpr int kArchReqXcompPerm = 0x1023;  // arch_prctl: ask for an extended state component
constexpr int kXfeatureXtiledata = 18;     // the AMX tile data

bool amx_granted() {
  static const bool granted = cpu_has_amx_bf16() && syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  return granted;
}

Bf16Kernel kernel_from_environment() {
  const char* value = std::getenv("SIFT_BF16_COMPUTE");
  const std::string_view choice = value ? value : "";
  if (choice != "" && choice != "auto" && choice != "avx512" && choice != "off")
    fail("SIFT_BF16_COMPUTE={}: expected auto, avx512 or off", std::string(choice));
  if (choice == "off") return Bf16Kernel::None;
  if (choice != "avx512" && bf16_kernel_available(Bf16Kernel::Amx)) return Bf16Kernel::Amx;
  if (bf16_kernel_available(Bf16Kernel::Avx512Bf16)) return Bf16Kernel::Avx512Bf16;
  return Bf16Kernel::None;
}

std::atomic<int> kernel_override{-1};  // set_bf16_kernel's choice, -1: none

}  // namespace

uint16_t bf16_round(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  if ((bits & 0x7F800000u) == 0) return static_cast<uint16_t>((bits >> 16) & 0x8000u);          // zero, denormal
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // NaN, quieted
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);                    // ties to even
}

bool bf16_kernel_available(Bf16Kernel kernel) {
  switch (kernel) {
    case Bf16Kernel::None: return true;
    case Bf16Kernel::Avx512Bf16: return cpu_has_avx512_bf16();
    case Bf16Kernel::Amx: return amx_granted();
  }
  return false;
}

Bf16Kernel bf16_kernel() {
  static const Bf16Kernel chosen = kernel_from_environment();
  const int chosen_by_test = kernel_override.load(std::memory_order_relaxed);
  return chosen_by_test < 0 ? chosen : static_cast<Bf16Kernel>(chosen_by_test);
}

void set_bf16_kernel(Bf16Kernel kernel) {
  if (!bf16_kernel_available(kernel)) fail("this CPU (or its OS) offers no {} for BF16 compute", bf16_kernel_name(kernel));
  kernel_override.store(static_cast<int>(kernel), std::memory_order_relaxed);
}

const char* bf16_kernel_name(Bf16Kernel kernel) {
  switch (kernel) {
    case Bf16Kernel::None: return "none";
    case Bf16Kernel::Avx512Bf16: return "avx512-bf16";
    case Bf16Kernel::Amx: return "amx";
  }
  return "?";
}

void gemm_bf16(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc) {
  const Bf16Kernel kernel = bf16_kernel();
  if (kernel == Bf16Kernel::None) fail("BF16 compute is off (SIFT_BF16_COMPUTE) or not on this CPU");
  const int64_t k_total = w.cols(), k2 = w.panel_depth(), n_panels = w.n_panels();
  const int64_t panel_elements = k2 * kNr;  // panel p to p + 1
  const int64_t m_padded = (m + kRowPadding - 1) / kRowPadding * kRowPadding;
  // A rounded once per call, shared by the threads (AMX: row-major; AVX512_BF16: micro-panels);
  // kept across calls (a session's forward call allocates nothing once grown).
  thread_local std::vector<uint16_t> rounded;
  rounded.resize(static_cast<size_t>(m_padded * k2));
  uint16_t* const a16 = rounded.data();
  const bool amx = kernel == Bf16Kernel::Amx;
  const int64_t n_pairs = k2 / 2, n_micro_panels = (m + kMr - 1) / kMr;
  const int64_t nc = column_block_panels();
  // Each thread owns a static range of panels (tile pairs at a time). Rows are rounded alone,
  // and nothing about the split depends on m.
#pragma omp parallel if (team_allowed(w.worth_threads(m)))
  {
    if (amx) {
#pragma omp for schedule(static)
      for (int64_t i = 0; i < m_padded; ++i) {
        if (i >= m) std::fill(a16 + i * k2, a16 + (i + 1) * k2, uint16_t{0});
        else round_row_avx512(a + i * lda, k_total, k2, a16 + i * k2);
      }
    } else {
#pragma omp for schedule(static)
      for (int64_t u = 0; u < n_micro_panels; ++u)
        pack_pair_panel<kMr>(a + u * kMr * lda, lda, std::min(kMr, m - u * kMr), k_total, k2, a16 + u * kMr * k2);
    }
    // (the loop's implicit barrier: every row is rounded before any is used)
    const int64_t n_threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t p_begin = n_panels * thread / n_threads, p_end = n_panels * (thread + 1) / n_threads;
    const auto n_valid_of = [&](int64_t p, int64_t end) {
      return std::min(std::min<int64_t>(2, end - p) * kNr, w.rows() - p * kNr);
    };
    if (amx && p_begin < p_end) {
      // K slices, then row blocks whose rounded rows stay in L2, then the panels, then the
      // block's row tiles.
      load_tile_config();
      const int64_t n_blocks = k2 / kBlock;
      for (int64_t b0 = 0; b0 < n_blocks; b0 += kAmxSliceBlocks) {
        const int64_t nb = std::min(kAmxSliceBlocks, n_blocks - b0);
        const int64_t block_rows = rows_in_half_l2(nb * kBlock * 2, kAmxRows, kAmxRows, 1024, 256);
        for (int64_t i0 = 0; i0 < m; i0 += block_rows) {
          const int64_t i1 = std::min(m, i0 + block_rows);
          for (int64_t p = p_begin; p < p_end; p += 2) {
            const uint16_t* b = w.bf16_panel(p) + b0 * kBlockElements;
            const int64_t n_valid = n_valid_of(p, p_end);
            for (int64_t i = i0; i < i1; i += kAmxRows) {
              const auto run = n_valid > kNr ? amx_block<2> : amx_block<1>;
              run(a16 + i * k2 + b0 * kBlock, k2 * 2, b, panel_elements, nb, b0 == 0, c + i * ldc + p * kNr, ldc,
                  std::min(kAmxRows, i1 - i), n_valid);
            }
          }
        }
      }
      release_tiles();
    } else if (!amx) {
      // BLIS order, as gemm: K slices; column blocks of this thread's panels, whose slices stay
      // in L2; each micro-panel's slice (in L1) passes over the column block, a panel pair at a
      // time, the next tile's C prefetched.
      for (int64_t j0 = 0; j0 < n_pairs && p_begin < p_end; j0 += kSlicePairs) {
        const int64_t nj = std::min(kSlicePairs, n_pairs - j0);
        for (int64_t n0 = p_begin; n0 < p_end; n0 += nc) {
          const int64_t n1 = std::min(p_end, n0 + nc);
          for (int64_t u = 0; u < n_micro_panels; ++u) {
            const int64_t i = u * kMr, rows = std::min(kMr, m - i);
            const uint16_t* a_tile = a16 + u * kMr * k2 + j0 * kMr * 2;
            for (int64_t p = n0; p < n1; p += 2) {
              if (p + 2 < n1) prefetch_c(c + i * ldc + (p + 2) * kNr, ldc, rows);
              else if (u + 1 < n_micro_panels) prefetch_c(c + (i + kMr) * ldc + n0 * kNr, ldc, std::min(kMr, m - i - kMr));
              const int64_t n_valid = n_valid_of(p, n1);
              const auto run = n_valid > kNr ? tile_dpbf16<2> : tile_dpbf16<1>;
              run(a_tile, w.bf16_panel(p) + j0 * kPairRow, panel_elements, nj, j0 == 0, c + i * ldc + p * kNr, ldc, rows,
                  n_valid);
            }
          }
        }
      }
    }
  }
}

void gemm_bf16_reference(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc,
                         Bf16Kernel kernel) {
  if (kernel == Bf16Kernel::None) fail("BF16 compute is off (SIFT_BF16_COMPUTE) or not on this CPU");
  std::vector<uint16_t> row(static_cast<size_t>(w.panel_depth()));
  for (int64_t i = 0; i < m; ++i) {
    round_row_plain(a + i * lda, w.cols(), w.panel_depth(), row.data());
    for (int64_t n = 0; n < w.rows(); ++n) c[i * ldc + n] = dot_reference(row.data(), w, n, kernel);
  }
}

void bf16_pack_rows(const float* a, int64_t lda, int64_t rows, int64_t k, int64_t k2, uint16_t* out) {
  pack_pair_panel<kBf16TileRows>(a, lda, rows, k, k2, out);
}

void bf16_pack_key_panel(const float* keys, int64_t key_stride, int64_t n_valid, int64_t hd, int64_t k2, uint16_t* out) {
  pack_pair_panel<16>(keys, key_stride, n_valid, hd, k2, out);
}

void bf16_tile(const uint16_t* a, const uint16_t* b, int64_t b_next, int64_t n_pairs, bool first, float* c,
               int64_t ldc, int64_t rows, int64_t n_valid) {
  const auto run = n_valid > kNr ? tile_dpbf16<2> : tile_dpbf16<1>;
  run(a, b, b_next, n_pairs, first, c, ldc, rows, n_valid);
}

float bf16_pair_fma(uint16_t a0, uint16_t a1, uint16_t b0, uint16_t b1, float c) {
  return fma_daz_ftz(widen(a0), widen(b0), fma_daz_ftz(widen(a1), widen(b1), c));
}

void gemv_rows_bf16(const float* a, const PackedMatrix& w, const int32_t* rows, int64_t n_rows, float* out) {
  const Bf16Kernel kernel = bf16_kernel();
  if (kernel == Bf16Kernel::None) fail("BF16 compute is off (SIFT_BF16_COMPUTE) or not on this CPU");
  thread_local std::vector<uint16_t> row;  // kept: a session's forward call allocates nothing once grown
  row.resize(static_cast<size_t>(w.panel_depth()));
  round_row_plain(a, w.cols(), w.panel_depth(), row.data());
  for (int64_t r = 0; r < n_rows; ++r) out[r] = dot_reference(row.data(), w, rows[r], kernel);
}

}  // namespace sift
