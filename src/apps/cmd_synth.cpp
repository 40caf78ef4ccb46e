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
  cmd->callback([args] { run_synth(*args); });
}
