// libFuzzer target: a config.json and the safetensors header of a checkpoint for it, as one
// input:
//
//   <config.json text> '\0' <safetensors header JSON>      (no '\0': the header is "{}")
//
// The header's data_offsets point into a fixed data section of kDataBytes bytes whose values
// are small and finite in F32, BF16 and F16 alike. Whatever config and header
// Model::from_checkpoint accepts must run a forward pass of three tokens; anything else must
// be a sift::Error. A crash, a sanitizer report, a hang or an allocation past the fuzzer's
// limit (tools/run_fuzzers.sh: 256 MB) is a bug: that is how a config whose sizes overflow
// or do not describe the tensors would show.
//
// The seeds (fuzz/corpus/fuzz_model_config/) are `sift make-checkpoint --arch A --hidden 8
// --layers 1 --heads 2 --kv-heads 1 --head-dim 4 --intermediate 16 --vocab 16` checkpoints of
// each architecture (llama also --untied --llama3-scaling): config.json, '\0', and the
// header bytes of model.safetensors.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/parallel.h"
#include "io/checkpoint.h"
#include "io/json_parse.h"
#include "model/model.h"

namespace {

constexpr size_t kDataBytes = 16 << 10;

// The data section: bytes 0x3C, 0x3D, 0xBC in turn, so every 2- or 4-byte element has an
// exponent field well inside the finite range (e.g. F32 0x3C3DBC3C ~ 0.0116, F16 0x3C3D ~ 1.06).
std::string data_section() {
  std::string data(kDataBytes, '\0');
  const char pattern[] = {'\x3C', '\x3D', '\xBC'};
  for (size_t i = 0; i < data.size(); ++i) data[i] = pattern[i % 3];
  return data;
}

std::string safetensors_file(std::string_view header) {
  static const std::string data = data_section();
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[i] = static_cast<char>(static_cast<uint64_t>(header.size()) >> (8 * i));
  file.append(header);
  file.append(data);
  return file;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  sift::set_n_threads(1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  const std::string_view config_text = input.substr(0, split);
  const std::string_view header = split == std::string_view::npos ? std::string_view("{}") : input.substr(split + 1);
  try {
    const nlohmann::json config_json = sift::parse_json(config_text, "config.json");  // Error when not JSON
    const sift::ModelConfig config = sift::parse_model_config(config_json, "config.json");
    const std::string file = safetensors_file(header);
    const sift::Checkpoint checkpoint = sift::Checkpoint::from_file(
        sift::SafetensorsFile::from_memory(std::as_bytes(std::span(file)), "model.safetensors"), "fuzz-model");
    const auto model = sift::Model::from_checkpoint(config, checkpoint);
    const int32_t last = static_cast<int32_t>(std::min<int64_t>(config.vocab_size - 1, 5));
    const std::vector<int32_t> ids = {0, last, 1 % (last + 1)}, positions = {0, 1, 2}, rows = {2};
    const sift::Segment causal[1] = {{.start = 0, .len = 3}};  // one causal prompt
    const sift::ForwardResult result = model->forward({ids, positions, causal, rows, {}});
    if (result.n_rows != 1 || result.n_cols != config.vocab_size) __builtin_trap();
  } catch (const sift::Error&) {
    // a clear error is the expected outcome for a config that does not fit
  }
  return 0;
}
