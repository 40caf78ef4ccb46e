#pragma once
// One `sift label` run: profiles in, judged in rounds, stored per member; members whose
// stored labels are current are skipped without model work.
//
// A member is judged when it has no stored labels, when its input changed (profile_row.h:
// text and given candidates, by hash), when the stored labels came from another artifact
// version (sift.json "version") or another threshold, or with refresh. Its rows are replaced in one transaction,
// so a killed run re-run continues where it stopped and ends with what one uninterrupted
// run stores. Malformed catalog and profile rows (and profiles the model cannot score) are
// reported as "file:line: what" and counted; the rest is labeled. The labeler is loaded only
// when a first profile needs judging.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/progress.h"
#include "label/rounds.h"
#include "io/shard.h"
#include "scoring/loaded_labeler.h"
#include "sift/weights.h"
#include "store/label_store.h"

namespace sift::label {

struct LabelRunOptions {
  std::filesystem::path model_dir;
  std::filesystem::path catalog;
  std::filesystem::path profiles;
  std::string store;  // SQLite file path or postgresql:// URI
  RoundOptions rounds;
  WeightStorage weights = WeightStorage::Auto;  // how the labeler's matrices are held (--weights)
  std::optional<double> threshold;              // label = score >= this (--threshold); else sift.json's
  bool refresh = false;
  Shard shard;
  // Where the rounds are scored (sift label --engine): given, the labeler is loaded without its
  // weights and this makes the engine for it (remote/connect.h); unset, a LocalEngine here.
  std::function<std::unique_ptr<Engine>(const std::filesystem::path& dir, const LoadedLabeler& labeler)> engine;
};

struct LabelRunSummary {
  std::string run_id;
  store::RunCounts counts;
  double seconds = 0;        // the whole run
  double model_seconds = 0;  // inside the model
  int64_t prefill_tokens = 0;
};

// `progress` counts profile lines read (its total: the lines of options.profiles) and
// carries the per-row reports.
LabelRunSummary run_label(const LabelRunOptions& options, ProgressReporter& progress);

}  // namespace sift::label
