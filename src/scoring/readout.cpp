#include "scoring/readout.h"

#include <algorithm>

namespace sift {

std::vector<int32_t> vocab_rows_for(std::span<const Readout* const> readouts) {
  std::vector<int32_t> rows;
  for (const Readout* readout : readouts) {
    if (readout->reads_vocabulary()) return {};
    rows.insert(rows.end(), readout->label_ids.begin(), readout->label_ids.end());
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

void read_item(const Readout& readout, std::span<const float> logits, std::span<const int32_t> vocab_rows,
               std::span<double> out) {
  const auto column = [&](int32_t id) -> float {
    if (vocab_rows.empty()) return logits[static_cast<size_t>(id)];
    return logits[static_cast<size_t>(std::lower_bound(vocab_rows.begin(), vocab_rows.end(), id) - vocab_rows.begin())];
  };
  if (readout.kind == Readout::Kind::YesProbability) {
    out[0] = yes_probability(column(readout.label_ids[0]), column(readout.label_ids[1]));
    return;
  }
  const std::span<const int32_t> labels = readout.label_ids;
  double m = -INFINITY, sum = 0;
  if (readout.softmax) {
    for (int32_t id : labels) m = std::max(m, static_cast<double>(column(id)));
    for (int32_t id : labels) sum += std::exp(static_cast<double>(column(id)) - m);
    for (size_t t = 0; t < labels.size(); ++t) out[t] = std::exp(static_cast<double>(column(labels[t])) - m) / sum;
    return;
  }
  for (float l : logits) m = std::max(m, static_cast<double>(l));
  for (float l : logits) sum += std::exp(static_cast<double>(l) - m);
  const double lse = m + std::log(sum);
  for (size_t t = 0; t < labels.size(); ++t) out[t] = std::exp(static_cast<double>(column(labels[t])) - lse);
}

}  // namespace sift
