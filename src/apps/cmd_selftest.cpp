// sift selftest: a labeler's known-answer self-test (scoring/self_test.h) alone. It scores the
// probes of sift.json's "self_test" here (--weights) or on engines (--engine) and compares them
// with the scores written there: exit 0 when they pass, 1 with the refusal when they do not.
// --write (re)measures the probes with F32 weights and writes them into sift.json (atomically,
// every other field kept): the rows of --probes FILE, else the probes it has, else built-in texts.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/command.h"
#include "apps/engine_option.h"
#include "apps/scoring_flags.h"
#include "core/error.h"
#include "io/path_lock.h"
#include "scoring/loaded_labeler.h"
#include "scoring/self_test.h"
#include "sift/labeler.h"

namespace {

namespace fs = std::filesystem;

struct SelftestArgs {
  std::string model, probes;
  bool write = false;
  sift::apps::ScoringFlags scoring;  // --weights, --engine
};

// The largest log-odds gap of `measured` against the probes' scores.
double largest_gap(const sift::SelfTest& self_test, const std::vector<std::vector<double>>& measured) {
  double largest = 0;
  for (size_t p = 0; p < self_test.probes.size(); ++p)
    for (size_t i = 0; i < self_test.probes[p].scores.size(); ++i)
      largest = std::max(largest, sift::log_odds_gap(measured[p][i], self_test.probes[p].scores[i]));
  return largest;
}

size_t item_count(const sift::SelfTest& self_test) {
  size_t items = 0;
  for (const sift::SelfTestProbe& probe : self_test.probes) items += probe.items.size();
  return items;
}

void run_write(const SelftestArgs& args) {
  if (args.scoring.engines().any())
    sift::apps::usage_error("--write measures the probes with this machine's F32 weights; leave out --engine");
  const fs::path dir = args.model;
  sift::check_labeler_files(dir);
  const sift::PathLock lock(dir / "sift.json");
  std::vector<sift::ProbeRow> rows;
  std::string source;
  if (!args.probes.empty()) {
    rows = sift::read_probe_rows(args.probes);
    source = args.probes;
  } else if (const std::optional<sift::SelfTest> old = sift::load_scoring_artifact(dir / "sift.json").self_test) {
    rows = sift::probe_rows(*old);
    source = "its probes";
  } else {
    rows = sift::builtin_probe_rows();
    source = "built-in probe texts";
  }
  const sift::SelfTest written = sift::write_self_test(dir, rows);
  sift::apps::print_report(nlohmann::ordered_json{{"sift_json", (dir / "sift.json").string()},
                                                  {"probes", written.probes.size()},
                                                  {"items", item_count(written)},
                                                  {"source", source},
                                                  {"written", true}});
  fmt::print(stderr, "sift selftest: wrote {} probes ({} items, from {}) with their F32 scores into {}\n",
             written.probes.size(), item_count(written), source, (dir / "sift.json").string());
}

void run_check(const SelftestArgs& args) {
  const fs::path dir = args.model;
  const sift::WeightStorage weights = args.scoring.weight_storage();
  sift::check_labeler_files(dir);
  const std::optional<sift::SelfTest> self_test = sift::load_scoring_artifact(dir / "sift.json").self_test;
  if (!self_test)
    sift::fail("{}: no \"self_test\" probes to run; write them with `sift selftest --model {} --write`",
               (dir / "sift.json").string(), args.model);
  std::vector<std::vector<double>> measured;
  sift::ProbeArithmetic arithmetic = sift::probe_arithmetic(weights);
  std::string where = "here";
  if (args.scoring.engines().any()) {
    // The engines run the probes as they join (remote/fleet.h): a refusal fails here. Then the
    // probes once more through the fleet, for the report.
    const sift::LabelerOnEngines on_engines =
        sift::apps::load_labeler_on_engines(dir, {.weights = weights}, args.scoring.engines(), sift::ScoringMode::Mis);
    if (!on_engines.arithmetic.exact) arithmetic = sift::ProbeArithmetic::Engine;
    std::vector<sift::Row> rows;
    for (const sift::SelfTestProbe& probe : self_test->probes) rows.push_back({probe.query, probe.items});
    for (const sift::RowResult& result : on_engines.labeler.score_rows(rows)) {
      if (!result.error.empty()) sift::fail("a self-test probe could not be scored on the engines: {}", result.error);
      std::vector<double>& row = measured.emplace_back();
      for (const std::optional<double>& score : result.scores) row.push_back(score.value_or(std::nan("")));
    }
    where = fmt::format("on {}", fmt::join(args.scoring.engine_urls, ", "));
  } else {
    const std::unique_ptr<sift::LoadedLabeler> labeler = sift::LoadedLabeler::load(dir, weights);
    sift::LocalEngine engine(labeler->model());
    measured = sift::score_probes(*labeler, engine, sift::probe_rows(*self_test));
  }
  if (std::optional<std::string> refusal =
          sift::compare_probes(*self_test, measured, arithmetic, fmt::format("the labeler ({})", args.model)))
    sift::fail("{}", *refusal);
  const double gap = largest_gap(*self_test, measured);
  const double tolerance = arithmetic == sift::ProbeArithmetic::BF16 ? self_test->tolerance.bf16
                           : arithmetic == sift::ProbeArithmetic::Q8 ? self_test->tolerance.q8
                           : arithmetic == sift::ProbeArithmetic::Engine ? self_test->tolerance.engine
                                                                         : 0.0;
  sift::apps::print_report(nlohmann::ordered_json{{"model", args.model},
                                                  {"weights", args.scoring.weights},
                                                  {"arithmetic", sift::probe_arithmetic_name(arithmetic)},
                                                  {"probes", self_test->probes.size()},
                                                  {"items", item_count(*self_test)},
                                                  {"largest_log_odds_gap", gap},
                                                  {"tolerance", tolerance},
                                                  {"passed", true}});
  fmt::print(stderr, "sift selftest: {} passes {} ({} probes, {} items, {} arithmetic: largest log-odds gap {:.3g}{})\n",
             args.model, where, self_test->probes.size(), item_count(*self_test),
             sift::probe_arithmetic_name(arithmetic), gap,
             arithmetic == sift::ProbeArithmetic::F32 ? std::string(", the same bits")
                                                      : fmt::format(", tolerance {:.3g}", tolerance));
}

}  // namespace

SIFT_COMMAND(selftest) {
  auto args = std::make_shared<SelftestArgs>();
  CLI::App* cmd = app.add_subcommand(
      "selftest", "Run a labeler's known-answer self-test (sift.json's probes) alone, or (--write) measure and write "
                  "its probes");
  cmd->add_option("--model", args->model, "labeler directory")->required();
  sift::apps::add_scoring_flags(cmd, sift::apps::Command::Selftest, args->scoring);
  cmd->add_flag("--write", args->write,
                "measure the probes with F32 weights and write them into sift.json (atomically, the other fields "
                "kept): the rows of --probes, else the probes it has, else built-in texts");
  cmd->add_option("--probes", args->probes,
                  "with --write: JSON-lines probe rows {\"query\", \"items\"} (at most 16 rows, 64 items in all)")
      ->check(CLI::ExistingFile);
  cmd->callback([args] {
    if (!args->probes.empty() && !args->write) sift::apps::usage_error("--probes gives the rows --write measures; add --write");
    if (args->write) run_write(*args);
    else run_check(*args);
  });
}
