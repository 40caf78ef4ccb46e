#pragma once
// How a labeler's weight matrices are held in memory (`sift score --weights`,
// sift::LoadOptions::weights). Norm weights and biases are always F32.
//
//   auto : each matrix keeps its checkpoint's type: F32 stays F32, BF16 and F16 stay 16-bit
//          and are widened to F32 inside the kernels (exactly). Scores are bitwise those of f32.
//   f32  : every matrix widened to F32 at load (twice the memory of a 16-bit checkpoint,
//          the same scores).
//   bf16 : every matrix rounded to BF16 (to nearest even): half the memory of F32. Where the
//          CPU has BF16 dot products (AVX512_BF16, and AMX where Linux grants it) they compute
//          the products: activations rounded to BF16, sums in F32 (fast with AMX), scores near F32's
//          and exact and reproducible within bf16 as q8's are. Elsewhere, or with the
//          environment variable SIFT_BF16_COMPUTE=off, the BF16 weights are multiplied in F32
//          (for a BF16 checkpoint the scores of auto) and a warning says so once.
//   q8   : every matrix quantized to int8 blocks of 32 with a scale (like GGUF Q8_0) and
//          multiplied with int8 dot products (activations are quantized the same way):
//          about 1.19 bytes per weight (~30% of F32's memory) and faster, at the cost of
//          scores that differ from F32's (docs/models.md: "Weights in memory"). Every score is
//          still exact and reproducible within q8: modes, order, splits, rows sharing a call
//          and threads do not change it.
#include <optional>
#include <string_view>

namespace sift {

enum class WeightStorage { Auto, F32, BF16, Q8 };

std::optional<WeightStorage> parse_weight_storage(std::string_view name);  // "auto", "f32", "bf16", "q8"
std::string_view weight_storage_name(WeightStorage storage);

}  // namespace sift
