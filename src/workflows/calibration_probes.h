#pragma once
// The self-test probes `sift calibrate` writes (scoring/self_test.h): items of its labeled
// rows, of both labels, whose scores lie nearest the chosen threshold in log-odds, where a
// change of the labeler moves labels first. Per label the kProbesPerLabel nearest items;
// each probe is one row's query with its picked items, in the row's order.
#include <cstddef>
#include <span>
#include <vector>

#include "scoring/self_test.h"
#include "sift/labeler.h"
#include "workflows/labeled_rows.h"

namespace sift {

inline constexpr size_t kProbesPerLabel = 3;

// `results` one per row (a row with an error is passed over); an empty list when no item was scored.
std::vector<ProbeRow> calibration_probe_rows(std::span<const LabeledRow> rows, std::span<const RowResult> results,
                                             double threshold);

}  // namespace sift
