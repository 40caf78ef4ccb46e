#include "train/evaluate.h"

#include <algorithm>

#include "train/loss.h"
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
    std::vector<const SequenceLayout*> pointers;
    for (const SequenceLayout& l : layouts) pointers.push_back(&l);
    const torch::Tensor s = answer_scores(model, collate(pointers), answer.yes, answer.no).contiguous();
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

}  // namespace sift::train
