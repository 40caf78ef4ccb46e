// sift make-checkpoint: write a random Hugging Face checkpoint (config.json +
// model.safetensors) of a chosen architecture and shape, so benchmarks and tests need no
// download. A preset gives the shape; any of the shape options overrides it. With
// --tokenizer FILE the tokenizer.json is copied in (its vocabulary sets vocab_size unless
// --vocab is given), so `sift init` can make the checkpoint a labeler.
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <optional>
#include <string>

#include "apps/cli.h"
#include "apps/command.h"
#include "core/error.h"
#include "io/atomic_file.h"
#include "io/path_lock.h"
#include "model/checkpoint_layout.h"
#include "model/random_checkpoint.h"
#include "tokenizer/tokenizer.h"

namespace {

// FILE's bytes as dir/tokenizer.json (atomically), unless FILE is that file already.
void copy_tokenizer(const std::filesystem::path& file, const std::filesystem::path& dir) {
  const std::filesystem::path target = dir / "tokenizer.json";
  std::error_code same_error;
  if (std::filesystem::exists(target) && std::filesystem::equivalent(file, target, same_error)) return;
  std::ifstream in(file, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (!in && !in.eof()) sift::fail("{}: cannot read it", file.string());
  sift::write_file_atomically(target, bytes.str());
}

}  // namespace

SIFT_COMMAND(make_checkpoint) {
  struct Options {
    std::string out, arch, preset = "tiny", dtype = "f32", tokenizer;
    std::optional<int64_t> hidden, layers, heads, kv_heads, head_dim, intermediate, vocab;
    std::optional<double> rope_theta;
    bool tied = false, untied = false, llama3_scaling = false;
    uint64_t seed = 0;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("make-checkpoint", "Write a random checkpoint (config.json + model.safetensors; tokenizer.json with --tokenizer)");
  cmd->add_option("--out", o->out, "output model directory (created)")->required();
  const std::vector<std::string> arch_names = sift::architecture_short_names();
  cmd->add_option("--arch", o->arch, fmt::format("{}", fmt::join(arch_names, " | ")))->required()->check(CLI::IsMember(arch_names));
  cmd->add_option("--preset", o->preset, "tiny | small | qwen3-0.6b | qwen3-4b (default tiny)")
      ->check(CLI::IsMember({"tiny", "small", "qwen3-0.6b", "qwen3-4b"}));
  cmd->add_option("--hidden", o->hidden, "hidden_size");
  cmd->add_option("--layers", o->layers, "num_hidden_layers");
  cmd->add_option("--heads", o->heads, "num_attention_heads");
  cmd->add_option("--kv-heads", o->kv_heads, "num_key_value_heads");
  cmd->add_option("--head-dim", o->head_dim, "head_dim");
  cmd->add_option("--intermediate", o->intermediate, "intermediate_size");
  cmd->add_option("--vocab", o->vocab, "vocab_size");
  auto* tied = cmd->add_flag("--tied", o->tied, "tie lm_head to the embeddings (the presets' default)");
  cmd->add_flag("--untied", o->untied, "write a separate lm_head.weight")->excludes(tied);
  cmd->add_option("--dtype", o->dtype, "f32 | bf16 (default f32)")->check(CLI::IsMember({"f32", "bf16"}));
  cmd->add_option("--seed", o->seed, "random seed (default 0)");
  cmd->add_option("--rope-theta", o->rope_theta, "rope_theta")->check(sift::apps::positive_decimal());
  cmd->add_flag("--llama3-scaling", o->llama3_scaling,
                "llama only: rope_scaling llama3 (factor 32, low 1, high 4, original 8192)");
  cmd->add_option("--tokenizer", o->tokenizer,
                  "copy this tokenizer.json into the checkpoint (vocab_size: its token count unless --vocab is given), "
                  "so `sift init` can make it a labeler")
      ->check(CLI::ExistingFile);
  cmd->callback([o] {
    // The tokenizer first: a broken one fails before anything is written.
    std::unique_ptr<sift::Tokenizer> tokenizer;
    if (!o->tokenizer.empty()) tokenizer = sift::Tokenizer::load(o->tokenizer);
    const sift::Architecture& arch = sift::architecture_named(o->arch);
    sift::ModelConfig c = sift::preset_model_config(o->preset, arch);
    auto set = [](int64_t& field, const std::optional<int64_t>& value) { if (value) field = *value; };
    set(c.hidden_size, o->hidden);
    set(c.n_layers, o->layers);
    set(c.n_heads, o->heads);
    set(c.n_kv_heads, o->kv_heads);
    set(c.head_dim, o->head_dim);
    set(c.intermediate_size, o->intermediate);
    if (tokenizer && !o->vocab) c.vocab_size = tokenizer->vocab_size();
    set(c.vocab_size, o->vocab);
    if (tokenizer && tokenizer->vocab_size() > c.vocab_size)
      sift::apps::usage_error("--vocab {}: the tokenizer {} has {} tokens; the vocabulary must hold them all", c.vocab_size,
                              o->tokenizer, tokenizer->vocab_size());
    if (o->rope_theta) c.rope_theta = *o->rope_theta;
    if (o->tied) c.tie_word_embeddings = true;
    if (o->untied) c.tie_word_embeddings = false;
    if (o->llama3_scaling) {
      if (!arch.allows_rope_scaling("llama3")) sift::fail("--llama3-scaling: {} has no llama3 rope_scaling", arch.hf_name);
      c.rope_scaling = {32.0, 1.0, 4.0, 8192};
    }
    const sift::DType dtype = o->dtype == "bf16" ? sift::DType::BF16 : sift::DType::F32;
    sift::create_output_directory(o->out, "--out");
    const sift::PathLock lock(o->out);
    sift::write_random_checkpoint(o->out, c, dtype, o->seed);
    if (tokenizer) copy_tokenizer(o->tokenizer, o->out);
    int64_t n_params = 0;
    for (const auto& spec : sift::checkpoint_layout(c)) {
      int64_t n = 1;
      for (int64_t d : spec.shape) n *= d;
      n_params += n;
    }
    nlohmann::json summary = {{"out", o->out}, {"architecture", arch.hf_name}, {"dtype", o->dtype},
                              {"n_params", n_params}, {"config", sift::model_config_to_json(c)}};
    if (tokenizer) summary["tokenizer"] = (std::filesystem::path(o->out) / "tokenizer.json").string();
    sift::apps::print_report(summary);
  });
}
