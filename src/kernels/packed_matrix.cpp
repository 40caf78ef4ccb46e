// PackedMatrix: packing rows of W into the kernels' layout (kernels/packed_matrix.h).
#include "kernels/packed_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "io/dtype.h"

namespace sift {
namespace {

constexpr int64_t kNr = PackedMatrix::kPanelWidth;
constexpr int64_t kQuads = PackedMatrix::kQ8Block / 4;  // 8 groups of 4 consecutive k per block

template <typename T>
T load_element(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

}  // namespace

float quantize_q8_block(const float* x, int64_t n, int8_t* q) {
  float amax = 0.0f;
  for (int64_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));
  const float d = amax / 127.0f;
  const float inverse = d > 0.0f ? 1.0f / d : 0.0f;
  for (int64_t i = 0; i < PackedMatrix::kQ8Block; ++i) {
    // |x * inverse| <= 127 up to one rounding; the clamp keeps the int8 range symmetric.
    const float r = i < n ? std::nearbyint(x[i] * inverse) : 0.0f;
    q[i] = static_cast<int8_t>(std::clamp(r, -127.0f, 127.0f));
  }
  return d;
}

size_t PackedMatrix::element_size() const {
  switch (type_) {
    case PackedType::F32: return 4;
    case PackedType::BF16: return 2;
    case PackedType::F16: return 2;
    case PackedType::Q8: return 1;
    case PackedType::BF16Dot: return 2;
  }
  return 4;
}

PackedMatrix::PackedMatrix(int64_t n_rows, int64_t n_cols, const std::function<void(int64_t, float*)>& fill_row,
                           PackedType type)
    : type_(type), n_rows_(n_rows), n_cols_(n_cols) {
  if (type == PackedType::Q8) {
    grow_populated(data_, static_cast<size_t>(n_panels() * n_q8_blocks() * kQ8PanelBlockBytes));  // zeros
    scales_.assign(static_cast<size_t>(n_panels() * n_q8_blocks() * kNr), 0.0f);
    sums_.assign(scales_.size(), 0);
  } else {
    grow_populated(data_, static_cast<size_t>(n_panels() * panel_depth() * kNr) * element_size());  // zeros
  }
  std::vector<float> row(static_cast<size_t>(n_cols));
  for (int64_t n = 0; n < n_rows; ++n) {
    fill_row(n, row.data());
    pack_row(n, row.data());
  }
}

void PackedMatrix::pack_row(int64_t n, const float* row) {
  const int64_t p = n / kNr, column = n % kNr;
  if (type_ == PackedType::Q8) {
    int8_t* quants = reinterpret_cast<int8_t*>(data_.data()) + p * n_q8_blocks() * kQ8PanelBlockBytes;
    float* scales = scales_.data() + p * n_q8_blocks() * kNr;
    int8_t block[kQ8Block];
    for (int64_t b = 0; b < n_q8_blocks(); ++b) {
      scales[b * kNr + column] = quantize_q8_block(row + b * kQ8Block, std::min(kQ8Block, n_cols_ - b * kQ8Block), block);
      for (int64_t j = 0; j < kQuads; ++j)
        std::memcpy(quants + b * kQ8PanelBlockBytes + j * 4 * kNr + column * 4, block + j * 4, 4);
      int sum = 0;
      for (const int8_t q : block) sum += q;
      sums_[(p * n_q8_blocks() + b) * kNr + column] = static_cast<int16_t>(sum);
    }
    return;
  }
  if (type_ == PackedType::BF16Dot) {
    uint16_t* dst = reinterpret_cast<uint16_t*>(data_.data()) + p * panel_depth() * kNr + column * 2;
    for (int64_t k = 0; k < n_cols_; ++k) dst[(k / 2) * 2 * kNr + k % 2] = f32_to_bf16(row[k]);
    return;
  }
  std::byte* dst = data_.data() + (p * n_cols_ * kNr + column) * element_size();
  const size_t stride = kNr * element_size();
  for (int64_t k = 0; k < n_cols_; ++k, dst += stride) {
    switch (type_) {
      case PackedType::F32: std::memcpy(dst, &row[k], 4); break;
      case PackedType::BF16: {
        const uint16_t bits = f32_to_bf16(row[k]);
        std::memcpy(dst, &bits, 2);
        break;
      }
      case PackedType::F16: {
        const uint16_t bits = f32_to_f16(row[k]);
        std::memcpy(dst, &bits, 2);
        break;
      }
      case PackedType::Q8:
      case PackedType::BF16Dot: break;
    }
  }
}

PackedMatrix PackedMatrix::from_row_major(const float* w, int64_t n_rows, int64_t n_cols, PackedType type) {
  return PackedMatrix(
      n_rows, n_cols, [&](int64_t n, float* dst) { std::copy(w + n * n_cols, w + (n + 1) * n_cols, dst); }, type);
}

float PackedMatrix::at(int64_t n, int64_t k) const {
  const int64_t p = n / kNr, column = n % kNr;
  if (type_ == PackedType::Q8) {
    const int64_t b = k / kQ8Block, j = (k % kQ8Block) / 4, t = k % 4;
    return q8_scales(p)[b * kNr + column] *
           static_cast<float>(q8_panel(p)[b * kQ8PanelBlockBytes + j * 4 * kNr + column * 4 + t]);
  }
  if (type_ == PackedType::BF16Dot) return bf16_to_f32(bf16_panel(p)[(k / 2) * 2 * kNr + column * 2 + k % 2]);
  const std::byte* element = panel_bytes(p) + (k * kNr + column) * element_size();
  switch (type_) {
    case PackedType::F32: return load_element<float>(element);
    case PackedType::BF16: return bf16_to_f32(load_element<uint16_t>(element));
    case PackedType::F16: return f16_to_f32(load_element<uint16_t>(element));
    case PackedType::Q8:
    case PackedType::BF16Dot: break;
  }
  return 0.0f;
}

void PackedMatrix::copy_row(int64_t n, float* dst) const {
  // Row n is column n % 16 of panel n / 16: one element every kNr, the type chosen once.
  const int64_t column = n % kNr;
  const std::byte* element = panel_bytes(n / kNr) + column * element_size();
  const size_t stride = kNr * element_size();
  switch (type_) {
    case PackedType::F32:
      for (int64_t k = 0; k < n_cols_; ++k, element += stride) dst[k] = load_element<float>(element);
      return;
    case PackedType::BF16:
      for (int64_t k = 0; k < n_cols_; ++k, element += stride) dst[k] = bf16_to_f32(load_element<uint16_t>(element));
      return;
    case PackedType::F16:
      for (int64_t k = 0; k < n_cols_; ++k, element += stride) dst[k] = f16_to_f32(load_element<uint16_t>(element));
      return;
    case PackedType::BF16Dot: {  // k pairs 32 elements apart
      const uint16_t* pairs = bf16_panel(n / kNr) + column * 2;
      for (int64_t k = 0; k < n_cols_; ++k) dst[k] = bf16_to_f32(pairs[(k / 2) * 2 * kNr + k % 2]);
      return;
    }
    case PackedType::Q8:
      for (int64_t k = 0; k < n_cols_; ++k) dst[k] = at(n, k);
      return;
  }
}

}  // namespace sift
