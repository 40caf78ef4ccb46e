// sift synth: writes the synthetic qualification-labeling world (src/synth/dataset.h).
#include <chrono>
#include <memory>

#include "apps/cli.h"
#include "apps/command.h"
#include "core/log.h"
#include "synth/dataset.h"

namespace {

struct SynthArgs {
  std::string out;
  int64_t members = 1000;
  int candidates = 20;
  double noise = 0.05;
  uint64_t seed = 1;
  std::string split = "0.8,0.1,0.1";
  std::string pretraining_corpus;
  int64_t tokens = sift::synth::CorpusOptions{}.tokens;
  bool no_skills_sections = false;
};

void run_synth(const SynthArgs& args) {
  using Clock = std::chrono::steady_clock;
  sift::synth::SynthOptions options;
  options.out_dir = args.out;
  options.n_members = args.members;
  options.n_candidates = args.candidates;
  options.noise = args.noise;
  options.seed = args.seed;
  options.split = sift::synth::SplitFractions::parse(args.split);
  options.pretraining_corpus = args.pretraining_corpus;
  options.corpus_tokens = args.tokens;
  options.corpus_skills_sections = !args.no_skills_sections;

  auto start = Clock::now();
  sift::ProgressReporter progress = sift::apps::progress_reporter("sift synth", "members", args.members);
  options.on_progress = [&progress](int64_t done, int64_t) { progress.update(done); };
  sift::synth::SynthSummary summary = sift::synth::write_synth_dataset(options);
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  nlohmann::ordered_json j = summary.to_json();
  progress.finish(fmt::format("{} members ({} train, {} validation, {} test), {} pairs to {} in {:.1f}s; positive rate "
                              "{:.3f} (truth {:.3f}), flip rate {:.4f}, truth recall@{} {:.3f}",
                              j["members"].get<int64_t>(), j["splits"]["train"]["members"].get<int64_t>(),
                              j["splits"]["validation"]["members"].get<int64_t>(),
                              j["splits"]["test"]["members"].get<int64_t>(), j["pairs"].get<int64_t>(), args.out,
                              seconds, j["positive_rate"].get<double>(), j["truth_positive_rate"].get<double>(),
                              j["flip_rate"].get<double>(), args.candidates, j["truth_recall_at_k"].get<double>()));
  if (summary.corpus)
    spdlog::info("pretraining corpus {}: {} documents ({} profiles, {} catalog descriptions, {} lists), {} bytes",
                 args.pretraining_corpus, summary.corpus->documents, summary.corpus->profiles,
                 summary.corpus->catalog_descriptions, summary.corpus->lists, summary.corpus->bytes);
}

}  // namespace

SIFT_COMMAND(synth) {
  auto args = std::make_shared<SynthArgs>();
  CLI::App* cmd = app.add_subcommand(
      "synth", "Generate the synthetic qualification-labeling dataset: profiles, BM25 candidates, labels");
  cmd->add_option("--out", args->out, "output directory (train/validation/test.jsonl, catalog.jsonl, summary.json)")
      ->required();
  cmd->add_option("--members", args->members, "number of member profiles")->capture_default_str();
  cmd->add_option("--candidates,-k", args->candidates, "candidates retrieved per member (top-K by BM25)")
      ->capture_default_str();
  cmd->add_option("--noise", args->noise, "probability of flipping each reference label")
      ->capture_default_str()
      ->check(sift::apps::decimal_in(0, 0.5));
  cmd->add_option("--seed", args->seed, "random seed (same seed, same bytes)")->capture_default_str();
  cmd->add_option("--split", args->split, "train,validation,test fractions of members, summing to 1")
      ->capture_default_str();
  cmd->add_option("--pretraining-corpus", args->pretraining_corpus,
                  "also write this JSONL file of pretraining text ({\"text\": ...} lines): profiles of a population "
                  "disjoint from every split, most followed by a skills section listing some of what the member holds "
                  "by the clean truth, catalog descriptions and lists; no pair of any split");
  auto* tokens = cmd->add_option("--tokens", args->tokens, "size of the pretraining corpus, in tokens (4 bytes each)")
                     ->capture_default_str()
                     ->check(CLI::PositiveNumber);
  tokens->needs(cmd->get_option("--pretraining-corpus"));
  cmd->add_flag("--no-skills-sections", args->no_skills_sections,
                "the corpus's profiles end without their skills sections (which pair a profile with qualifications "
                "it holds); the corpus fills --tokens with other documents instead")
      ->needs(cmd->get_option("--pretraining-corpus"));
  cmd->callback([args] { run_synth(*args); });
}
