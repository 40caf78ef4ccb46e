#include "io/dtype.h"

#include <bit>
#include <cmath>
#include <cstring>

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian; sift reads it as is");

namespace sift {

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::F32: return 4;
    case DType::BF16: return 2;
    case DType::F16: return 2;
  }
  return 0;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32: return "F32";
    case DType::BF16: return "BF16";
    case DType::F16: return "F16";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  if (name == "F32") return DType::F32;
  if (name == "BF16") return DType::BF16;
  if (name == "F16") return DType::F16;
  return std::nullopt;
}

float bf16_to_f32(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

float f16_to_f32(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  uint32_t mantissa = bits & 0x3FFu;
  uint32_t out;
  if (exponent == 0x1F) {  // inf (mantissa 0) or NaN (payload kept, top bits)
    out = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0) {  // normal: rebias 15 -> 127
    out = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {  // +-0
    out = sign;
  } else {  // subnormal m * 2^-24: normalise so the leading 1 lands at bit 10
    int shift = 0;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3FFu;
    out = sign | (static_cast<uint32_t>(127 - 15 + 1 - shift) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(out);
}

uint16_t f32_to_bf16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // NaN
  // Round to nearest, ties to even: add 0x7FFF plus the lowest kept bit, then truncate.
  const uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

uint16_t f32_to_f16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return sign | 0x7E00u | static_cast<uint16_t>((magnitude >> 13) & 0x3FFu);  // NaN
  if (magnitude >= 0x477FF000u) return sign | 0x7C00u;  // >= 65520 rounds past 65504: inf
  if (magnitude >= 0x38800000u) {                       // a normal f16 (>= 2^-14): rebias 127 -> 15
    const uint32_t rounded = magnitude + 0xFFFu + ((magnitude >> 13) & 1u);  // nearest even at bit 13
    return sign | static_cast<uint16_t>((rounded - (112u << 23)) >> 13);
  }
  // Subnormal f16, m * 2^-24: value = (1.mantissa) * 2^(e - 127) = significand * 2^(e - 150),
  // so m = significand >> (126 - e), rounded to nearest even; below 2^-25 everything is 0.
  const uint32_t exponent = magnitude >> 23;
  if (exponent < 102) return sign;
  const uint32_t significand = (magnitude & 0x7FFFFFu) | 0x800000u;
  const uint32_t shift = 126 - exponent, half = 1u << (shift - 1), rest = significand & ((1u << shift) - 1);
  uint32_t m = significand >> shift;
  if (rest > half || (rest == half && (m & 1u))) ++m;
  return sign | static_cast<uint16_t>(m);
}

namespace {

// Converts with `widen` while OR-ing a flag for "all exponent bits set" (branch-free, so the
// loop vectorises); only when the flag is set is dst searched for the first bad element.
template <typename Bits, Bits kExponentMask, typename Widen>
size_t convert_checked(const std::byte* src, float* dst, size_t n, Widen widen) {
  Bits non_finite = 0;
  for (size_t i = 0; i < n; ++i) {
    Bits bits;
    std::memcpy(&bits, src + sizeof(Bits) * i, sizeof(Bits));  // the file is little-endian, like the host
    dst[i] = widen(bits);
    non_finite |= static_cast<Bits>((bits & kExponentMask) == kExponentMask);
  }
  if (!non_finite) return n;
  size_t first = 0;
  while (std::isfinite(dst[first])) ++first;
  return first;
}

}  // namespace

size_t convert_to_f32(DType dtype, const std::byte* src, float* dst, size_t n) {
  switch (dtype) {
    case DType::F32:
      return convert_checked<uint32_t, 0x7F800000u>(src, dst, n, [](uint32_t bits) { return std::bit_cast<float>(bits); });
    case DType::BF16: return convert_checked<uint16_t, 0x7F80u>(src, dst, n, bf16_to_f32);
    case DType::F16: return convert_checked<uint16_t, 0x7C00u>(src, dst, n, f16_to_f32);
  }
  return n;
}

}  // namespace sift
