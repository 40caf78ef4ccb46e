#pragma once
// The self-test probes `sift calibrate` writes (scoring/self_test.h): items of its labeled
// rows, of both labels, whose scores lie nearest the chosen threshold in log-odds, where a
// change of the labeler moves labels first. Per label the kProbesPerLabel nearest items;
// each probe is one row's query with its picked items, in the row's order.
#include <cstddef>
#include <filesystem>
#include <span>
#include <vector>

#include "scoring/self_test.h"
#include "sift/labeler.h"
#include "workflows/artifact_update.h"
#include "workflows/labeled_rows.h"

namespace sift {

inline constexpr size_t kProbesPerLabel = 3;

// `results` one per row (a row with an error is passed over); an empty list when no item was scored.
std::vector<ProbeRow> calibration_probe_rows(std::span<const LabeledRow> rows, std::span<const RowResult> results,
                                             double threshold);

// Sets `update`'s new sift.json text's "self_test" to those probes, scored with the F32 weights of
// the labeler in `model_dir` (its tolerances kept when it has some). Returns how many probes;
// 0, and `update` as it was, when no item was scored.
size_t add_calibration_probes(ArtifactUpdate& update, const std::filesystem::path& model_dir,
                              std::span<const LabeledRow> rows, std::span<const RowResult> results, double threshold);

}  // namespace sift
