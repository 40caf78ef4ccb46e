#pragma once
// Element types of checkpoint tensors and exact conversions to and from F32.
//
//   F32  : IEEE binary32, little-endian.
//   BF16 : the top 16 bits of a binary32 (1 sign, 8 exponent, 7 mantissa bits);
//          widening is exact (shift left 16), narrowing rounds to nearest, ties to even.
//   F16  : IEEE binary16 (1 sign, 5 exponent bias 15, 10 mantissa bits); widening is
//          exact for normals, subnormals (m * 2^-24), +-0, +-inf and NaN.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace sift {

enum class DType { F32, BF16, F16 };

size_t dtype_size(DType dtype);                     // bytes per element: 4, 2, 2
std::string_view dtype_name(DType dtype);           // "F32", "BF16", "F16" (safetensors spelling)
std::optional<DType> parse_dtype(std::string_view name);  // nullopt for anything unsupported

float bf16_to_f32(uint16_t bits);
float f16_to_f32(uint16_t bits);
uint16_t f32_to_bf16(float value);  // round to nearest even; NaN stays a (quiet) NaN
uint16_t f32_to_f16(float value);   // round to nearest even (subnormals too); past 65504 -> inf; NaN stays NaN

// Converts n elements of raw little-endian `src` (any alignment) to F32 and, in the same
// pass, looks for NaN and +-Inf (all exponent bits set: F32 0x7F800000, BF16 0x7F80, F16
// 0x7C00). Returns the index of the first such element, or n when every one is finite.
size_t convert_to_f32(DType dtype, const std::byte* src, float* dst, size_t n);

}  // namespace sift
