#include "workflows/calibration_probes.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "scoring/artifact.h"

namespace sift {

std::vector<ProbeRow> calibration_probe_rows(std::span<const LabeledRow> rows, std::span<const RowResult> results,
                                             double threshold) {
  struct Candidate {
    size_t row = 0, item = 0;
    double distance = 0;  // |logit(score) - logit(threshold)|
  };
  std::vector<Candidate> by_label[2];
  const double center = probe_log_odds(threshold);
  for (size_t r = 0; r < rows.size() && r < results.size(); ++r) {
    if (!results[r].error.empty()) continue;
    for (size_t i = 0; i < rows[r].labels.size() && i < results[r].scores.size(); ++i)
      if (const std::optional<double>& score = results[r].scores[i]; score && std::isfinite(*score))
        by_label[rows[r].labels[i] ? 1 : 0].push_back({r, i, std::abs(probe_log_odds(*score) - center)});
  }
  std::map<size_t, std::vector<size_t>> picked;  // row -> its picked items, rows in input order
  for (std::vector<Candidate>& candidates : by_label) {
    const size_t n = std::min(kProbesPerLabel, candidates.size());
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(n), candidates.end(),
                      [](const Candidate& a, const Candidate& b) {
                        return a.distance != b.distance ? a.distance < b.distance
                                                        : std::pair(a.row, a.item) < std::pair(b.row, b.item);
                      });
    for (size_t k = 0; k < n; ++k) picked[candidates[k].row].push_back(candidates[k].item);
  }
  std::vector<ProbeRow> probes;
  for (auto& [row, items] : picked) {
    std::sort(items.begin(), items.end());
    ProbeRow& probe = probes.emplace_back();
    probe.query = rows[row].row.query;
    for (size_t item : items) probe.items.push_back(rows[row].row.items[item]);
  }
  return probes;
}

size_t add_calibration_probes(ArtifactUpdate& update, const std::filesystem::path& model_dir,
                              std::span<const LabeledRow> rows, std::span<const RowResult> results, double threshold) {
  const std::vector<ProbeRow> probe_rows = calibration_probe_rows(rows, results, threshold);
  if (probe_rows.empty()) return 0;
  const std::filesystem::path sift_json = model_dir / "sift.json";
  const std::optional<SelfTest> old = load_scoring_artifact(sift_json).self_test;
  const SelfTest self_test = measure_self_test(model_dir, probe_rows, old ? old->tolerance : SelfTestTolerance{});
  update.text = with_self_test(update.text, self_test, sift_json.string());
  return self_test.probes.size();
}

}  // namespace sift
