// sift init: makes a bare Hugging Face checkpoint directory a labeler by writing a validated
// sift.json from a preset (workflows/artifact_presets.h). The checkpoint is checked as
// scoring will load it (config.json, the tensor index against the config, tokenizer.json)
// before the weights are read; the answer words must be single tokens inside the model's
// vocabulary. Then the self-test probes (scoring/self_test.h: built-in texts, or --probes FILE)
// are scored with the F32 weights and written into sift.json. An existing sift.json is
// replaced only with --force.
//
// With --out DIR (needed for a Hugging Face Hub id, whose snapshot in the Hub cache is not
// sift's to write into), DIR is made a labeler directory of its own: sift.json, and a symbolic
// link to each model file (config.json, tokenizer.json, the weights) at its absolute path,
// which for a Hub model is snapshots/<commit>/<file> in the cache. Every loader reads through
// the links, and the labeler's fingerprint (the files' names, sizes and bytes) is that of a
// copy.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/command.h"
#include "apps/model_option.h"
#include "core/error.h"
#include "io/atomic_file.h"
#include "io/checkpoint.h"
#include "io/labeler_files.h"
#include "io/path_lock.h"
#include "model/checkpoint_layout.h"
#include "model/checkpoint_match.h"
#include "model/config.h"
#include "scoring/artifact.h"
#include "scoring/loaded_labeler.h"
#include "scoring/prompt.h"
#include "scoring/self_test.h"
#include "tokenizer/tokenizer.h"
#include "workflows/artifact_presets.h"

namespace {

namespace fs = std::filesystem;

struct InitArgs {
  std::string model, preset, version, probes, out;
  std::optional<std::string> instruction, yes, no;
  bool force = false;
};

// The version an existing sift.json says it is, for the refusal message.
std::string existing_version(const fs::path& sift_json) {
  try {
    return "version \"" + sift::load_scoring_artifact(sift_json).version + "\"";
  } catch (const sift::Error&) {
    return "not a valid artifact";
  }
}

// --out: `out` (absent or an empty directory; with --force, one whose model files are links)
// gets a link to each model file of `source`.
void link_model_files(const fs::path& source, const fs::path& out, bool force) {
  std::error_code error;
  if (fs::exists(fs::symlink_status(out, error)) && !fs::is_directory(fs::symlink_status(out, error)))
    sift::fail("--out {}: exists and is not a directory", out.string());
  if (fs::is_directory(out) && !fs::is_empty(out) && !force)
    sift::fail("--out {}: exists and is not empty; --force replaces its sift.json and model links", out.string());
  fs::create_directories(out);
  const std::vector<fs::path> files = sift::labeler_files(source, error);
  if (error) sift::fail("{}: cannot list it: {}", source.string(), error.message());
  for (const fs::path& file : files) {
    if (file.filename() == "sift.json") continue;
    const fs::path link = out / file.filename();
    const fs::file_status status = fs::symlink_status(link, error);
    if (fs::exists(status)) {
      if (!fs::is_symlink(status))
        sift::fail("--out {}: {} is a file of its own, not a link to the model's; --force replaces links only",
                   out.string(), file.filename().string());
      fs::remove(link);
    }
    fs::create_symlink(fs::absolute(file), link);
  }
}

void run_init(const InitArgs& args) {
  const bool hub_model = sift::apps::is_hub_model(args.model);
  if (hub_model && args.out.empty())
    sift::apps::usage_error("--model {} is a Hugging Face Hub model, whose files in the Hub cache are not sift's to "
                            "write into: give --out DIR, the labeler directory to make (its sift.json, and links to "
                            "the model's files)",
                            args.model);
  const fs::path source = sift::apps::model_directory(args.model);
  if (!fs::is_directory(source))
    sift::fail("{}: not a directory (give the Hugging Face checkpoint's folder, or its Hub id org/name)", args.model);
  sift::check_labeler_files(source, /*need_sift_json=*/false);
  const fs::path dir = args.out.empty() ? source : fs::path(args.out);
  if (!args.out.empty()) link_model_files(source, dir, args.force);
  const fs::path sift_json = dir / "sift.json";
  const sift::PathLock lock(sift_json);
  if (fs::exists(sift_json) && !args.force)
    sift::fail("{}: already exists ({}); --force replaces it", sift_json.string(), existing_version(sift_json));

  const sift::ModelConfig config = sift::load_model_config(dir / "config.json");
  sift::check_checkpoint_matches(sift::Checkpoint::open(dir), sift::checkpoint_layout(config), config);
  const std::unique_ptr<sift::Tokenizer> tokenizer = sift::Tokenizer::load(dir / "tokenizer.json");
  if (tokenizer->vocab_size() > config.vocab_size)
    sift::fail("{}: the tokenizer has {} tokens but config.json's vocab_size is {}", (dir / "tokenizer.json").string(),
               tokenizer->vocab_size(), config.vocab_size);

  const std::vector<sift::ProbeRow> probe_rows =
      args.probes.empty() ? sift::builtin_probe_rows() : sift::read_probe_rows(args.probes);
  const sift::PresetOptions preset{args.preset, args.instruction, args.yes, args.no, args.version};
  const nlohmann::ordered_json artifact_json = sift::preset_artifact_json(*tokenizer, preset);
  const sift::ScoringArtifact artifact = sift::preset_artifact(*tokenizer, preset);
  const sift::AnswerTokenIds answer = sift::resolve_answer_tokens(*tokenizer, artifact, "--preset " + args.preset);
  for (auto [field, id] : {std::pair{"yes", answer.yes}, std::pair{"no", answer.no}})
    if (id >= config.vocab_size)
      sift::fail("--preset {}: \"{}\" is token {}, outside the model's vocabulary of {}", args.preset, field, id,
                 config.vocab_size);

  // The probes, measured on the labeler as it will load (F32 weights), written with the rest.
  const sift::LoadedLabeler labeler(sift::Model::load(dir, sift::WeightStorage::F32),
                                    sift::Tokenizer::load(dir / "tokenizer.json"), artifact, sift_json.string());
  const sift::SelfTest self_test = sift::measure_self_test(labeler, probe_rows);
  sift::write_file_atomically(sift_json, sift::with_self_test(artifact_json.dump(2), self_test, sift_json.string()));
  nlohmann::ordered_json report = {{"sift_json", sift_json.string()},
                                   {"model", hub_model ? args.model : source.string()},
                                   {"preset", args.preset},
                                   {"version", artifact.version},
                                   {"yes", {{"text", artifact.yes}, {"id", answer.yes}}},
                                   {"no", {{"text", artifact.no}, {"id", answer.no}}},
                                   {"threshold", artifact.threshold},
                                   {"self_test_probes", self_test.probes.size()}};
  sift::apps::print_report(report);
  fmt::print(stderr,
             "sift init: wrote {} (preset {}, answers \"{}\"/\"{}\" = tokens {}/{}, threshold {}); try it with `sift "
             "score --model {}`, then calibrate the threshold on labeled rows with `sift calibrate`\n",
             sift_json.string(), args.preset, artifact.yes, artifact.no, answer.yes, answer.no, artifact.threshold,
             dir.string());
}

}  // namespace

SIFT_COMMAND(init) {
  auto args = std::make_shared<InitArgs>();
  CLI::App* cmd = app.add_subcommand(
      "init", "Make a Hugging Face checkpoint (a directory or a Hub id) a labeler: write a validated sift.json from a preset");
  cmd->add_option("--model", args->model,
                  "the checkpoint directory (config.json, weights, tokenizer.json), or a Hugging Face Hub id "
                  "org/name[@revision]")
      ->required();
  cmd->add_option("--out", args->out,
                  "make this directory the labeler (sift.json and links to the model's files) instead of writing "
                  "into the checkpoint's; needed for a Hub id");
  cmd->add_option("--preset", args->preset,
                  "qwen3-reranker (Qwen3-Reranker's own prompt, answers yes/no) | chat (the tokenizer's chat layout, "
                  "answers YES/NO) | compact (no special tokens)")
      ->required()
      ->check(CLI::IsMember(sift::preset_names()));
  cmd->add_option("--instruction", args->instruction, "the task text (default: the preset's)");
  cmd->add_option("--yes", args->yes, "the YES answer word (default: the preset's); must be one token");
  cmd->add_option("--no", args->no, "the NO answer word (default: the preset's); must be one token");
  cmd->add_option("--artifact-version", args->version, "sift.json \"version\" (default: <preset>-1)");
  cmd->add_option("--probes", args->probes,
                  "JSON-lines rows {\"query\", \"items\"} to write as the self-test probes, scored with the F32 "
                  "weights (at most 16 rows, 64 items in all; default: built-in texts)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--force", args->force, "replace an existing sift.json");
  cmd->callback([args] { run_init(*args); });
}
