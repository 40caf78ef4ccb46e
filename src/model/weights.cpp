#include "model/weights.h"

#include <mutex>
#include <string>

#include "core/error.h"
#include "core/log.h"
#include "kernels/gemm_bf16.h"
#include "model/checkpoint_layout.h"
#include "model/checkpoint_match.h"

namespace sift {
namespace {

// bf16: multiplied as BF16 where this process has a kernel for it (kernels/gemm_bf16.h), else
// BF16 weights multiplied in F32, which is said once.
PackedType bf16_type() {
  const Bf16Kernel kernel = bf16_kernel();
  if (kernel != Bf16Kernel::None) {
    static std::once_flag said_kernel;
    std::call_once(said_kernel, [&] { spdlog::debug("BF16 compute: the {} kernel", bf16_kernel_name(kernel)); });
    return PackedType::BF16Dot;
  }
  static std::once_flag said_fallback;
  std::call_once(said_fallback, [] {
    spdlog::warn("--weights bf16: {}, so BF16 weights are multiplied in F32",
                 bf16_kernel_available(Bf16Kernel::Avx512Bf16) ? "BF16 compute is off (SIFT_BF16_COMPUTE=off)"
                                                                : "this CPU has no BF16 dot products (AVX512_BF16)");
  });
  return PackedType::BF16;
}

// The type a stack of tensors is held in: auto keeps the checkpoint's (F32 when the tensors
// of one stack differ), the others are what they say.
PackedType packed_type(const Checkpoint& checkpoint, const std::vector<const TensorSpec*>& specs, WeightStorage storage) {
  switch (storage) {
    case WeightStorage::F32: return PackedType::F32;
    case WeightStorage::BF16: return bf16_type();
    case WeightStorage::Q8: return PackedType::Q8;
    case WeightStorage::Auto: break;
  }
  const DType dtype = checkpoint.info(specs[0]->name).dtype;
  for (const TensorSpec* spec : specs)
    if (checkpoint.info(spec->name).dtype != dtype) return PackedType::F32;
  return dtype == DType::BF16 ? PackedType::BF16 : dtype == DType::F16 ? PackedType::F16 : PackedType::F32;
}

// Stacks tensors (each (rows_i, n_cols), n_cols shared, shapes already checked against the
// checkpoint) row-wise into one packed matrix, reading each row straight from the checkpoint
// mapping (no full F32 copy of the tensor).
PackedMatrix pack_rows(const Checkpoint& checkpoint, const std::vector<const TensorSpec*>& specs,
                       WeightStorage storage) {
  const int64_t n_cols = specs[0]->shape[1];
  int64_t total_rows = 0;
  for (const TensorSpec* spec : specs) total_rows += spec->shape[0];
  PackedMatrix packed(total_rows, n_cols, [&](int64_t row, float* dst) {
    size_t t = 0;
    while (row >= specs[t]->shape[0]) row -= specs[t++]->shape[0];
    checkpoint.read_f32_range(specs[t]->name, row * n_cols, {dst, static_cast<size_t>(n_cols)});
  }, packed_type(checkpoint, specs, storage));
  for (const TensorSpec* spec : specs) checkpoint.release(spec->name);  // keep only the packed copy resident
  return packed;
}

std::vector<float> read_vector(const Checkpoint& checkpoint, const TensorSpec& spec) {
  return checkpoint.read_f32(spec.name, spec.shape);
}

}  // namespace

size_t ModelWeights::bytes() const {
  size_t total = embed.bytes() + lm_head.bytes() + final_norm.size() * sizeof(float);
  for (const LayerWeights& L : layers) {
    total += L.qkv.bytes() + L.o.bytes() + L.gate_up.bytes() + L.down.bytes();
    for (const std::vector<float>* v : {&L.input_norm, &L.qkv_bias, &L.q_norm, &L.k_norm, &L.o_bias, &L.post_norm})
      total += v->size() * sizeof(float);
  }
  return total;
}

ModelWeights load_weights(const Checkpoint& ckpt, const ModelConfig& c, WeightStorage storage) {
  const std::vector<TensorSpec> layout = checkpoint_layout(c);
  check_checkpoint_matches(ckpt, layout, c);  // before anything is allocated
  const TensorLookup tensors(layout);
  using K = TensorKind;

  ModelWeights w;
  w.embed = pack_rows(ckpt, {&tensors.at(K::Embedding)}, storage);
  if (const TensorSpec* head = tensors.find(K::OutputHead)) w.lm_head = pack_rows(ckpt, {head}, storage);
  w.final_norm = read_vector(ckpt, tensors.at(K::FinalNorm));
  w.layers.resize(static_cast<size_t>(c.n_layers));
  for (int64_t i = 0; i < c.n_layers; ++i) {
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    L.input_norm = read_vector(ckpt, tensors.at(K::InputNorm, i));
    L.post_norm = read_vector(ckpt, tensors.at(K::PostNorm, i));
    L.qkv = pack_rows(ckpt, {&tensors.at(K::QProj, i), &tensors.at(K::KProj, i), &tensors.at(K::VProj, i)}, storage);
    for (const TensorKind kind : {K::QBias, K::KBias, K::VBias}) {
      if (const TensorSpec* bias = tensors.find(kind, i)) {
        const std::vector<float> values = read_vector(ckpt, *bias);
        L.qkv_bias.insert(L.qkv_bias.end(), values.begin(), values.end());
      }
    }
    if (const TensorSpec* q_norm = tensors.find(K::QNorm, i)) L.q_norm = read_vector(ckpt, *q_norm);
    if (const TensorSpec* k_norm = tensors.find(K::KNorm, i)) L.k_norm = read_vector(ckpt, *k_norm);
    L.o = pack_rows(ckpt, {&tensors.at(K::OProj, i)}, storage);
    if (const TensorSpec* o_bias = tensors.find(K::OBias, i)) L.o_bias = read_vector(ckpt, *o_bias);
    L.gate_up = pack_rows(ckpt, {&tensors.at(K::GateProj, i), &tensors.at(K::UpProj, i)}, storage);
    L.down = pack_rows(ckpt, {&tensors.at(K::DownProj, i)}, storage);
    spdlog::debug("loaded layer {}/{}", i + 1, c.n_layers);
  }
  return w;
}

}  // namespace sift
