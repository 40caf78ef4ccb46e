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
    // One readout per decision: its answer-list token, read where generate_layout reads it.
    std::vector<SequenceLayout> layouts;
    std::vector<int64_t> reference, other;  // the ids the reference label and the opposite label write
    std::vector<int8_t> labels;
    for (size_t r = begin; r < end; ++r) {
      if (rows[r].labels.empty()) continue;
      SequenceLayout s = generate_layout(rows[r]);
      std::vector<int32_t> readout, targets;
      for (size_t k = 0; k < rows[r].decisions.size(); ++k) {
        const AnswerDecision& d = rows[r].decisions[k];
        readout.push_back(s.readout[static_cast<size_t>(d.index)]);
        targets.push_back(s.targets[static_cast<size_t>(d.index)]);
        reference.push_back(targets.back());
        other.push_back(d.other);
        labels.push_back(rows[r].labels[k]);
      }
      s.readout = std::move(readout);
      s.targets = std::move(targets);
      layouts.push_back(std::move(s));
    }
    if (layouts.empty()) continue;
    const Batch batch = collate(layouts);
    const torch::Tensor hidden = model.hidden_at(batch.ids, batch.positions, batch.mask, batch.rows);
    const torch::Tensor logits = model.logits(hidden);  // (n, V)
    const torch::Tensor rows_n = torch::arange(logits.size(0));
    const torch::Tensor l_reference = logits.index({rows_n, torch::tensor(reference)}).contiguous();  // (n)
    const torch::Tensor l_other = logits.index({rows_n, torch::tensor(other)}).contiguous();
    const float* ref = l_reference.data_ptr<float>();
    const float* oth = l_other.data_ptr<float>();
    for (size_t d = 0; d < labels.size(); ++d) {
      const bool yes = labels[d] == 1;
      const float l_yes = yes ? ref[d] : oth[d], l_no = yes ? oth[d] : ref[d];
      a.n_agree += (l_yes >= l_no) == yes;  // ties go to YES, as scoring
      ++a.n_pairs;
    }
  }
  return a;
}

}  // namespace sift::train
