// Model load time, and what the NaN / Inf scan of the weights adds to it, side by side in one
// run. The checkpoint is the `small` preset (F32, as `sift make-checkpoint --arch qwen3
// --preset small` writes it), generated once into build/bench/bench_data/load_small.
//
//   BM_Load                 Model::load of the checkpoint (config, index check, conversion,
//                           packing, mapped pages released)
//   BM_ConvertRows/copy     every tensor of the file converted row by row into a row buffer
//                           with a plain copy: what loading's conversion did before the scan
//   BM_ConvertRows/checked  the same rows through convert_to_f32 (copy + scan in one pass)
//
// (checked - copy) / load is the share of load time the scan costs.
#include <benchmark/benchmark.h>

#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "io/safetensors.h"
#include "model/model.h"
#include "model/random_checkpoint.h"

namespace sift {
namespace {

const std::filesystem::path& checkpoint_dir() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path d =
        std::filesystem::read_symlink("/proc/self/exe").parent_path() / "bench_data" / "load_small";
    if (!std::filesystem::exists(d / "model.safetensors"))
      write_random_checkpoint(d, preset_model_config("small", architecture_named("qwen3")), DType::F32, 42);
    return d;
  }();
  return dir;
}

void BM_Load(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Model::load(checkpoint_dir()));
}

void BM_ConvertRows(benchmark::State& state) {
  const bool checked = state.range(0) == 1;
  const SafetensorsFile file = SafetensorsFile::open(checkpoint_dir() / "model.safetensors");
  std::vector<float> row;
  int64_t n_bytes = 0;
  for (auto _ : state) {
    for (const TensorInfo& tensor : file.tensors()) {
      const int64_t n_cols = tensor.shape.back(), n_rows = tensor.n_elements() / n_cols;
      row.resize(static_cast<size_t>(n_cols));
      const size_t row_bytes = static_cast<size_t>(n_cols) * dtype_size(tensor.dtype);
      for (int64_t r = 0; r < n_rows; ++r) {
        const std::byte* src = tensor.bytes.data() + r * row_bytes;
        if (checked) {
          if (convert_to_f32(tensor.dtype, src, row.data(), row.size()) != row.size()) fail("non-finite weight");
        } else {
          std::memcpy(row.data(), src, row_bytes);
        }
        benchmark::DoNotOptimize(row.data());
      }
      n_bytes += static_cast<int64_t>(tensor.bytes.size());
      file.release(tensor);  // as loading does: the next pass reads the file again
    }
  }
  state.SetBytesProcessed(n_bytes);
}

BENCHMARK(BM_Load)->Unit(benchmark::kMillisecond)->Repetitions(7)->ReportAggregatesOnly(true);
BENCHMARK(BM_ConvertRows)->ArgName("checked")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Repetitions(7)
    ->ReportAggregatesOnly(true);

}  // namespace
}  // namespace sift

BENCHMARK_MAIN();
