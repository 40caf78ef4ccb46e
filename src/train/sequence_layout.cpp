#include "train/sequence_layout.h"

#include <algorithm>

#include "core/error.h"
#include "scoring/plan.h"

namespace sift::train {

namespace {

SequenceLayout from_call(ForwardCall call, std::vector<int32_t> targets) {
  return {.ids = std::move(call.ids), .positions = std::move(call.positions), .segments = std::move(call.segments),
          .readout = std::move(call.logit_rows), .targets = std::move(targets), .soft_targets = {}};
}

}  // namespace

SequenceLayout single_candidate_layout(const std::vector<int32_t>& query, const std::vector<int32_t>& item,
                                       int32_t target) {
  if (item.empty()) fail("a candidate encodes to no tokens: there is no answer position");
  ForwardCall call;
  std::vector<int32_t> prompt = query;
  prompt.insert(prompt.end(), item.begin(), item.end());
  append_run(call, prompt, 0, {});  // one causal prompt [q; c]
  call.logit_rows.push_back(static_cast<int32_t>(call.n_tokens() - 1));
  return from_call(std::move(call), {target});
}

SequenceLayout packed_layout(const std::vector<int32_t>& query, const std::vector<std::vector<int32_t>>& items,
                             const std::vector<int32_t>& targets) {
  if (items.size() != targets.size()) fail("packed_layout: {} items but {} targets", items.size(), targets.size());
  for (const std::vector<int32_t>& item : items)
    if (item.empty()) fail("a candidate encodes to no tokens: there is no answer position");
  ForwardCall call;
  append_request(call, query, items, 0, 0);  // the multi-item rule of scoring/plan.h
  return from_call(std::move(call), targets);
}

SequenceLayout packed_layout(const std::vector<int32_t>& query, const std::vector<std::vector<int32_t>>& items,
                             const std::vector<int32_t>& targets, const std::vector<float>& soft_targets) {
  if (!soft_targets.empty() && soft_targets.size() != items.size())
    fail("packed_layout: {} items but {} soft targets", items.size(), soft_targets.size());
  SequenceLayout s = packed_layout(query, items, targets);
  s.soft_targets = soft_targets;
  return s;
}

torch::Tensor layout_mask(const std::vector<Segment>& segments, int64_t n_tokens, int64_t padded_len) {
  torch::Tensor mask = torch::zeros({padded_len, padded_len}, torch::kBool);
  auto m = mask.accessor<bool, 2>();
  int64_t covered = 0;
  for (const Segment& seg : segments) {
    if (seg.start != covered || seg.context_end > seg.start)
      fail("layout_mask: segments must cover the tokens in order, each context before it");
    for (int32_t j = 0; j < seg.len; ++j) {
      const VisibleKeys keys = visible_keys(seg, j, 0);  // the engine's rule, no cached keys
      const int32_t t = seg.start + j;
      for (int32_t k = keys.context_begin; k < keys.context_end; ++k) m[t][k] = true;
      for (int32_t k = keys.own_begin; k < keys.own_end; ++k) m[t][k] = true;
    }
    covered += seg.len;
  }
  if (covered != n_tokens) fail("layout_mask: segments cover {} of {} tokens", covered, n_tokens);
  for (int64_t t = n_tokens; t < padded_len; ++t) m[t][t] = true;  // padding sees itself only
  return mask;
}

Batch collate(const std::vector<SequenceLayout>& sequences) {
  std::vector<const SequenceLayout*> pointers;
  pointers.reserve(sequences.size());
  for (const SequenceLayout& s : sequences) pointers.push_back(&s);
  return collate(pointers);
}

Batch collate(const std::vector<const SequenceLayout*>& sequences) {
  if (sequences.empty()) fail("collate: empty batch");
  const auto B = static_cast<int64_t>(sequences.size());
  int64_t T = 0, n_rows = 0;
  Batch batch;
  const bool soft = !sequences.front()->soft_targets.empty();
  for (const SequenceLayout* s : sequences) {
    if (!s->soft_targets.empty() && s->soft_targets.size() != s->readout.size())
      fail("collate: {} soft targets for {} readout rows", s->soft_targets.size(), s->readout.size());
    if (s->soft_targets.empty() == soft) fail("collate: a batch mixes sequences with soft targets and without");
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
  if (soft) batch.soft_targets = torch::empty({n_rows}, torch::kFloat32);
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
      if (soft) batch.soft_targets.data_ptr<float>()[r] = s.soft_targets[i];
    }
  }
  return batch;
}

}  // namespace sift::train
