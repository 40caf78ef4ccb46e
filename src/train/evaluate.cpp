#include "train/evaluate.h"

#include <algorithm>

#include "train/loss.h"
#include "workflows/calibration.h"
#include "train/sequence_layout.h"

namespace sift::train {

std::vector<std::vector<float>> score_rows(const TorchModel& model, const std::vector<EncodedRow>& rows,
                                           const AnswerTokenIds& answer, int64_t rows_per_batch) {
  torch::NoGradGuard no_grad;
  std::vector<std::vector<float>> scores(rows.size());
  for (size_t begin = 0; begin < rows.size(); begin += static_cast<size_t>(rows_per_batch)) {
    const size_t end = std::min(rows.size(), begin + static_cast<size_t>(rows_per_batch));
    std::vector<SequenceLayout> layouts;
    std::vector<size_t> members;
    for (size_t r = begin; r < end; ++r) {
      if (rows[r].items.empty()) continue;
      layouts.push_back(packed_layout(rows[r].query, rows[r].items, rows[r].targets));
      members.push_back(r);
    }
    if (layouts.empty()) continue;
    const torch::Tensor s = answer_scores(model, collate(layouts), answer.yes, answer.no).contiguous();
    const float* data = s.data_ptr<float>();
    for (size_t r : members) {
      scores[r].assign(data, data + rows[r].items.size());
      data += rows[r].items.size();
    }
  }
  return scores;
}

Agreement agreement(const TorchModel& model, const std::vector<EncodedRow>& rows, const AnswerTokenIds& answer,
                    double threshold) {
  const std::vector<std::vector<float>> scores = score_rows(model, rows, answer);
  Agreement a;
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t i = 0; i < rows[r].labels.size(); ++i) {
      const bool predicted = scores[r][i] >= threshold;  // ties go to YES
      a.n_agree += predicted == (rows[r].labels[i] == 1);
      ++a.n_pairs;
    }
  return a;
}

ThresholdAgreement best_threshold_agreement(const TorchModel& model, const std::vector<EncodedRow>& rows,
                                            const AnswerTokenIds& answer) {
  const std::vector<std::vector<float>> scores = score_rows(model, rows, answer);
  std::vector<double> flat;
  std::vector<bool> reference;
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t i = 0; i < rows[r].labels.size(); ++i) {
      flat.push_back(scores[r][i]);
      reference.push_back(rows[r].labels[i] == 1);
    }
  const PrCurve curve = precision_recall_curve(flat, reference);
  const PrPoint& best = choose_operating_point(curve, {CalibrationTarget::Kind::Agreement, 0.0});
  return {best.threshold, best.agreement};
}

double mean_loss(const TorchModel& model, const ExampleSet& examples, int64_t examples_per_batch) {
  torch::NoGradGuard no_grad;
  double total = 0;
  int64_t n_rows = 0;
  const auto n = static_cast<int32_t>(examples.sizes.size());
  for (int32_t begin = 0; begin < n; begin += static_cast<int32_t>(examples_per_batch)) {
    std::vector<SequenceLayout> layouts;
    for (int32_t e = begin; e < std::min<int32_t>(n, begin + static_cast<int32_t>(examples_per_batch)); ++e)
      layouts.push_back(examples.layout(e));
    const LossOutput out = label_only_loss(model, collate(layouts));
    total += out.loss.item<double>() * static_cast<double>(out.n_rows);  // the batch mean back to a sum
    n_rows += out.n_rows;
  }
  return n_rows > 0 ? total / static_cast<double>(n_rows) : 0.0;
}

Agreement teacher_forced_agreement(const TorchModel& model, const std::vector<GenerateRow>& rows,
                                   int64_t rows_per_batch) {
  torch::NoGradGuard no_grad;
  Agreement a;
  for (size_t begin = 0; begin < rows.size(); begin += static_cast<size_t>(rows_per_batch)) {
    const size_t end = std::min(rows.size(), begin + static_cast<size_t>(rows_per_batch));
    // Every answer-list token up to the last decision is read where generate_layout reads it.
    std::vector<SequenceLayout> layouts;
    std::vector<const GenerateRow*> members;
    for (size_t r = begin; r < end; ++r) {
      if (rows[r].labels.empty()) continue;
      SequenceLayout s = generate_layout(rows[r]);
      const auto n_read = static_cast<size_t>(rows[r].decisions.back().index) + 1;
      s.readout.resize(n_read);
      s.targets.resize(n_read);
      layouts.push_back(std::move(s));
      members.push_back(&rows[r]);
    }
    if (layouts.empty()) continue;
    const Batch batch = collate(layouts);
    const torch::Tensor hidden = model.hidden_at(batch.ids, batch.positions, batch.mask, batch.rows);
    // greedy (n) = argmax over the vocabulary at each answer token; right = it is the reference's
    const torch::Tensor right = model.logits(hidden).argmax(1).eq(batch.targets).contiguous();
    const bool* ok = right.data_ptr<bool>();
    for (size_t m = 0; m < members.size(); ++m) {
      int32_t first = 0;  // item k's tokens: after item k-1's decision, through its own
      for (const AnswerDecision& d : members[m]->decisions) {
        bool line_right = true;
        for (int32_t j = first; j <= d.index; ++j) line_right = line_right && ok[j];
        a.n_agree += line_right;
        ++a.n_pairs;
        first = d.index + 1;
      }
      ok += layouts[m].readout.size();
    }
  }
  return a;
}

}  // namespace sift::train
