// sift label: the labeling loop. Profiles in, candidates retrieved from the catalog (or
// given), judged in rounds of K with early stopping, stored per member in a label store
// (src/label/label_run.h). Progress on stderr; a one-line JSON summary on stdout.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "apps/model_option.h"
#include "apps/command.h"
#include "apps/engine_option.h"
#include "apps/scoring_flags.h"
#include "core/error.h"
#include "core/progress.h"
#include "label/jsonl_file.h"
#include "label/label_run.h"

namespace {

struct LabelArgs {
  sift::label::LabelRunOptions run;
  std::string model, catalog, profiles, shard = "1/1";
  bool strict = false;
  sift::apps::ScoringFlags scoring;  // --threshold, --weights, --kv-cache-mb, --engine
};

// The labeler as sift score and sift batch load it: here, or (--engine) without its weights on
// the engines, whose rounds go out two per engine at once.
void use_labeler(LabelArgs& args) {
  args.run.load_labeler = [dir = args.run.model_dir, load = args.scoring.load_options(),
                           engines = args.scoring.engines()] { return sift::apps::load_labeler(dir, load, engines); };
  const sift::apps::EngineFlags engines = args.scoring.engines();
  if (engines.any()) args.run.profiles_together = 2 * static_cast<int64_t>(engines.urls.size());
}

void run_label_command(LabelArgs& args) {
  args.run.model_dir = args.model;
  args.run.catalog = args.catalog;
  args.run.profiles = args.profiles;
  args.run.shard = sift::Shard::parse(args.shard);
  args.run.threshold = args.scoring.threshold;
  args.run.weights = args.scoring.weight_storage();
  args.run.rounds.validate();
  use_labeler(args);

  sift::label::JsonlFile{args.run.profiles};  // an Error naming it now, before any work, when it cannot be read
  sift::ProgressReporter progress =
      sift::apps::progress_reporter("sift label", "profiles", sift::count_lines(args.run.profiles));
  const sift::label::LabelRunSummary summary = sift::label::run_label(args.run, progress);
  const sift::store::RunCounts& c = summary.counts;
  const double labels_per_second = summary.seconds > 0 ? double(c.pairs_judged) / summary.seconds : 0.0;

  using sift::apps::counted;
  if (c.judged == 0 && c.skipped_unchanged > 0)
    progress.finish(fmt::format("nothing to judge: all {} are unchanged since their stored labels, no model work done "
                                "(--refresh judges them again); {}",
                                counted(c.skipped_unchanged, "profile"), counted(c.errors, "error")));
  else
    progress.finish(fmt::format("{}: {} judged in {}, {} unchanged, {}; {} judged, {} accepted; {:.0f} labels/s; {} "
                                "(model {:.1f}s)",
                                counted(c.profiles, "profile"), c.judged, counted(c.rounds, "round"),
                                c.skipped_unchanged, counted(c.errors, "error"), counted(c.pairs_judged, "pair"),
                                c.accepted, labels_per_second, sift::format_duration(summary.seconds),
                                summary.model_seconds));
  nlohmann::ordered_json j;
  j["run_id"] = summary.run_id;
  j["profiles"] = c.profiles;
  j["judged"] = c.judged;
  j["skipped_unchanged"] = c.skipped_unchanged;
  j["errors"] = c.errors;
  j["rounds"] = c.rounds;
  j["pairs_judged"] = c.pairs_judged;
  j["accepted"] = c.accepted;
  j["prefill_tokens"] = summary.prefill_tokens;
  j["seconds"] = summary.seconds;
  j["model_seconds"] = summary.model_seconds;
  j["labels_per_second"] = labels_per_second;
  sift::apps::print_report(j);
  // Rows that failed and nothing labeled is a failed run, not an empty success.
  if (c.errors > 0 && c.judged == 0 && c.skipped_unchanged == 0)
    sift::fail("no profile was labeled, and {} failed (the reasons are above, file:line)", counted(c.errors, "row"));
  if (args.strict && c.errors > 0)
    sift::fail("{} left out (the reasons are above, file:line); --strict makes that a failed run",
               counted(c.errors, "row"));
}

}  // namespace

SIFT_COMMAND(label) {
  auto args = std::make_shared<LabelArgs>();
  CLI::App* cmd = app.add_subcommand(
      "label", "Label profiles against a catalog in rounds with early stopping, into a label store (incremental)");
  cmd->add_option("--model", args->model, "labeler directory (config.json, weights, tokenizer.json, sift.json) or Hugging Face Hub id org/name[@revision]")
      ->required();
  cmd->add_option("--catalog", args->catalog, "JSON lines {\"id\", \"name\", \"aliases\"?: [...]}")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--profiles", args->profiles, "JSON lines {\"id\", \"text\", \"candidates\"?: [catalog ids]}")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--store", args->run.store, "label store: a SQLite file (created if missing) or postgresql://...")
      ->required();
  cmd->add_option("--k", args->run.rounds.k, "candidates judged per round")->capture_default_str();
  cmd->add_option("--max-rounds", args->run.rounds.max_rounds, "most rounds per profile")->capture_default_str();
  cmd->add_option("--stop-below", args->run.rounds.stop_below,
                  "stop after a round whose accepted fraction is below this (0: never stop early)")
      ->capture_default_str()
      ->check(sift::apps::kProbability);
  cmd->add_flag("--refresh", args->run.refresh, "judge every profile again, even those whose labels are current");
  cmd->add_option("--shard", args->shard, "K/N: label only the members of shard K of N (by a hash of the id)")
      ->capture_default_str();
  sift::apps::add_scoring_flags(cmd, sift::apps::Command::Label, args->scoring);
  sift::apps::add_strict_flag(cmd, args->strict, "of the catalog or profiles was left out");
  cmd->callback([args] {
    args->model = sift::apps::model_directory(args->model);
    run_label_command(*args);
  });
}
