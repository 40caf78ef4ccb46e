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
#include "sift/labeler.h"
#include "store/label_store.h"

namespace sift::label {

struct LabelRunOptions {
  std::filesystem::path model_dir;
  std::filesystem::path catalog;
  std::filesystem::path profiles;
  std::string store;  // SQLite file path or postgresql:// URI
  RoundOptions rounds;
  WeightStorage weights = WeightStorage::Auto;  // how the labeler's matrices are held (--weights), for the record
  std::optional<double> threshold;              // label = score >= this (--threshold); else sift.json's
  bool refresh = false;
  Shard shard;
  // Loads the labeler of model_dir (sift/labeler.h): here, or on engines elsewhere (sift label
  // --engine, sift/engines.h), as sift score and sift batch load it; called when a first
  // profile needs judging. Its query-KV cache keeps a profile's keys for its later rounds.
  std::function<Labeler()> load_labeler;
  // Profiles whose rounds are scored together (RoundJudge): 1 here; with --engine, enough to
  // keep every engine busy (two calls in flight on each).
  int64_t profiles_together = 1;
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
