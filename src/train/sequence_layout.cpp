#include "train/sequence_layout.h"

#include <algorithm>

#include "core/error.h"

namespace sift::train {

SequenceLayout single_candidate_layout(const std::vector<int32_t>& query, const std::vector<int32_t>& item,
                                       int32_t target) {
  if (item.empty()) fail("a candidate encodes to no tokens: there is no answer position");
  SequenceLayout s;
  s.ids = query;
  s.ids.insert(s.ids.end(), item.begin(), item.end());
  const auto n = static_cast<int32_t>(s.ids.size());
  for (int32_t t = 0; t < n; ++t) s.positions.push_back(t);
  s.segments.push_back({0, n, 0});
  s.readout.push_back(n - 1);
  s.targets.push_back(target);
  return s;
}

SequenceLayout packed_layout(const std::vector<int32_t>& query, const std::vector<std::vector<int32_t>>& items,
                             const std::vector<int32_t>& targets) {
  if (items.size() != targets.size()) fail("packed_layout: {} items but {} targets", items.size(), targets.size());
  SequenceLayout s;
  const auto query_len = static_cast<int32_t>(query.size());
  s.ids = query;
  for (int32_t t = 0; t < query_len; ++t) s.positions.push_back(t);
  if (query_len > 0) s.segments.push_back({0, query_len, 0});
  for (size_t i = 0; i < items.size(); ++i) {
    const std::vector<int32_t>& item = items[i];
    if (item.empty()) fail("a candidate encodes to no tokens: there is no answer position");
    const auto start = static_cast<int32_t>(s.ids.size()), len = static_cast<int32_t>(item.size());
    s.ids.insert(s.ids.end(), item.begin(), item.end());
    for (int32_t t = 0; t < len; ++t) s.positions.push_back(query_len + t);  // positions restart at Lq
    s.segments.push_back({start, len, query_len});
    s.readout.push_back(start + len - 1);
    s.targets.push_back(targets[i]);
  }
  return s;
}

torch::Tensor layout_mask(const std::vector<Segment>& segments, int64_t n_tokens, int64_t padded_len) {
  torch::Tensor mask = torch::zeros({padded_len, padded_len}, torch::kBool);
  auto m = mask.accessor<bool, 2>();
  int64_t covered = 0;
  for (const Segment& seg : segments) {
    if (seg.start != covered || seg.context_len > seg.start) fail("layout_mask: segments must cover the tokens in order");
    for (int32_t t = seg.start; t < seg.start + seg.len; ++t) {
      for (int32_t j = 0; j < seg.context_len; ++j) m[t][j] = true;  // the shared context (the query)
      for (int32_t j = seg.start; j <= t; ++j) m[t][j] = true;      // its own segment, causally
    }
    covered += seg.len;
  }
  if (covered != n_tokens) fail("layout_mask: segments cover {} of {} tokens", covered, n_tokens);
  for (int64_t t = n_tokens; t < padded_len; ++t) m[t][t] = true;  // padding sees itself only
  return mask;
}

Batch collate(const std::vector<const SequenceLayout*>& sequences) {
  if (sequences.empty()) fail("collate: empty batch");
  const auto B = static_cast<int64_t>(sequences.size());
  int64_t T = 0, n_rows = 0;
  Batch batch;
  for (const SequenceLayout* s : sequences) {
    T = std::max<int64_t>(T, static_cast<int64_t>(s->ids.size()));
    n_rows += static_cast<int64_t>(s->readout.size());
    batch.n_tokens += static_cast<int64_t>(s->ids.size());
  }
  batch.n_padded_tokens = B * T;
  batch.ids = torch::zeros({B, T}, torch::kInt64);
  batch.positions = torch::zeros({B, T}, torch::kInt64);
  batch.mask = torch::empty({B, T, T}, torch::kBool);
  batch.rows.batch_index = torch::empty({n_rows}, torch::kInt64);
  batch.rows.token_index = torch::empty({n_rows}, torch::kInt64);
  batch.targets = torch::empty({n_rows}, torch::kInt64);
  auto ids = batch.ids.accessor<int64_t, 2>();
  auto positions = batch.positions.accessor<int64_t, 2>();
  auto batch_index = batch.rows.batch_index.accessor<int64_t, 1>();
  auto token_index = batch.rows.token_index.accessor<int64_t, 1>();
  auto targets = batch.targets.accessor<int64_t, 1>();
  int64_t r = 0;
  for (int64_t b = 0; b < B; ++b) {
    const SequenceLayout& s = *sequences[static_cast<size_t>(b)];
    const auto n = static_cast<int64_t>(s.ids.size());
    for (int64_t t = 0; t < n; ++t) {
      ids[b][t] = s.ids[static_cast<size_t>(t)];
      positions[b][t] = s.positions[static_cast<size_t>(t)];
    }
    batch.mask[b].copy_(layout_mask(s.segments, n, T));
    for (size_t i = 0; i < s.readout.size(); ++i, ++r) {
      batch_index[r] = b;
      token_index[r] = s.readout[i];
      targets[r] = s.targets[i];
    }
  }
  return batch;
}

}  // namespace sift::train
