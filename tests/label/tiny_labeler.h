#pragma once
// A real tiny labeler for the label-loop tests: a random Qwen3 checkpoint (preset tiny,
// vocabulary 512), the byte-level BPE tokenizer of tests/scoring/data and a chat-layout
// artifact (the layout of tests/e2e/lib/tiny_labeler.sh), written once per test process.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "io/dtype.h"
#include "model/random_checkpoint.h"
#include "scoring/loaded_labeler.h"

namespace sift::testing {

inline std::filesystem::path tiny_labeler_checkpoint() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path d =
        std::filesystem::temp_directory_path() / ("sift_label_test_" + std::to_string(::getpid()));
    ModelConfig config = preset_model_config("tiny", architecture_named("qwen3"));
    config.vocab_size = 512;
    static const struct Cleanup {  // removed when the test program exits
      std::filesystem::path path;
      ~Cleanup() { std::filesystem::remove_all(path); }
    } cleanup{d};
    write_random_checkpoint(d, config, DType::F32, 5);
    std::filesystem::copy_file(std::string(SIFT_SOURCE_DIR) + "/tests/scoring/data/byte_bpe_tokenizer.json",
                               d / "tokenizer.json", std::filesystem::copy_options::overwrite_existing);
    return d;
  }();
  return dir;
}

inline std::unique_ptr<LoadedLabeler> tiny_labeler(double threshold) {
  const std::filesystem::path dir = tiny_labeler_checkpoint();
  // Parsed like a sift.json, so the artifact's defaults apply; the format is the current one.
  const ScoringArtifact artifact = parse_scoring_artifact(
      nlohmann::json{{"format", std::string(kScoringFormat)},
                     {"version", "test-1"},
                     {"query_template", "<|im_start|>user\nDoes the profile support the qualification?\nProfile: {query}\n"},
                     {"item_template", "Qualification: {item}<|im_end|>\n<|im_start|>assistant\n"},
                     {"yes", "YES"},
                     {"no", "NO"},
                     {"threshold", threshold}},
      "tiny labeler");
  return std::make_unique<LoadedLabeler>(Model::load(dir), Tokenizer::load(dir / "tokenizer.json"), artifact,
                                   "tiny labeler");
}

}  // namespace sift::testing
