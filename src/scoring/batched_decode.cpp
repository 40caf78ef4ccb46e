#include "scoring/batched_decode.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "scoring/plan.h"

namespace sift {

int32_t greedy_token(std::span<const float> logits) {
  // A NaN compares false with everything and an infinity wins every comparison, so the choice
  // would mean nothing: a broken checkpoint's row is refused instead, never guessed at.
  for (size_t id = 0; id < logits.size(); ++id)
    if (!std::isfinite(logits[id]))
      fail("the model's logit for token id {} is {}: the checkpoint is broken", id, logits[id]);
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

namespace {

// A row in flight: its region [base, base + size) of the key space, of which the first
// `filled` keys are written (its prompt, then its decoded tokens but the last); `next` is the
// token its next step runs, at position `filled`.
struct Flight {
  size_t row = 0;
  int64_t base = 0, size = 0, filled = 0;
  int32_t next = 0;
  bool joining = true;  // its prompt runs in the next call
};

class BatchedDecoder {
 public:
  BatchedDecoder(Session& session, std::span<const DecodeRow> rows, int64_t max_batch_tokens,
                 const DecodeLogitsHook& on_logits)
      : session_(session), rows_(rows), max_batch_tokens_(max_batch_tokens), on_logits_(on_logits),
        eos_(session.model().config().eos_token_id), generated_(rows.size()) {}

  std::vector<std::vector<int32_t>> run() {
    if (max_batch_tokens_ <= 0) fail("batched decoding needs a positive token budget, got {}", max_batch_tokens_);
    for (const DecodeRow& row : rows_)
      if (row.prompt.empty()) fail("packed generation: the prompt has no tokens");
    session_.truncate(0);
    for (size_t next = 0;;) {
      next = admit(next);
      if (flights_.empty()) break;
      call();
    }
    session_.truncate(0);
    return std::move(generated_);
  }

 private:
  // Rows from `next` on join while their regions fit the budget beside those in flight (the
  // first always does when none is); returns the first row left waiting.
  size_t admit(size_t next) {
    for (; next < rows_.size(); ++next) {
      const DecodeRow& row = rows_[next];
      if (row.budget <= 0) continue;  // nothing to decode: greedy_decode runs nothing either
      const int64_t size = static_cast<int64_t>(row.prompt.size()) + row.budget;
      if (!flights_.empty() && in_flight_ + size > max_batch_tokens_) break;
      flights_.push_back({.row = next, .base = place(size), .size = size});
      in_flight_ += size;
    }
    return next;
  }

  // The first gap of the key space that holds `size` keys within the budget (or the row
  // alone); when none does, the regions are slid together and the row goes after them.
  int64_t place(int64_t size) {
    const int64_t capacity = std::max(max_batch_tokens_, size);
    std::vector<const Flight*> by_base;
    for (const Flight& f : flights_) by_base.push_back(&f);
    std::sort(by_base.begin(), by_base.end(), [](const Flight* a, const Flight* b) { return a->base < b->base; });
    int64_t cursor = 0;
    for (const Flight* f : by_base) {
      if (f->base - cursor >= size) return cursor;
      cursor = f->base + f->size;
    }
    if (capacity - cursor >= size) return cursor;
    compact();
    return regions_end();
  }

  // Slides every region down to the end of the one before it, in key order, moving the
  // written keys (moving down in ascending order never overwrites keys still to be moved).
  void compact() {
    std::vector<Flight*> by_base;
    for (Flight& f : flights_) by_base.push_back(&f);
    std::sort(by_base.begin(), by_base.end(), [](const Flight* a, const Flight* b) { return a->base < b->base; });
    int64_t cursor = 0;
    for (Flight* f : by_base) {
      if (f->base != cursor && f->filled > 0)
        session_.move_keys({static_cast<int32_t>(f->base), static_cast<int32_t>(f->base + f->filled)}, cursor);
      f->base = cursor;
      cursor += f->size;
    }
  }

  int64_t regions_end() const {
    int64_t end = 0;
    for (const Flight& f : flights_) end = std::max(end, f.base + f.size);
    return end;
  }

  // One forward call: the joining rows' prompts and every other row's step after the regions,
  // then each row's new keys into its region, its logits to its next token.
  void call() {
    const int64_t n = regions_end();
    if (session_.n_cached() > n) session_.truncate(n);
    else session_.extend_keys(n);

    ForwardCall step{.key_offset = n};
    std::vector<KeyRange> new_keys;
    new_keys.reserve(flights_.size());
    for (const Flight& f : flights_) {
      if (f.joining) {
        new_keys.push_back(append_run(step, rows_[f.row].prompt, 0, {}));  // {t, P, [0, 0)}
      } else {
        const int32_t ids[1] = {f.next};
        const KeyRange own{static_cast<int32_t>(f.base), static_cast<int32_t>(f.base + f.filled)};
        new_keys.push_back(append_run(step, ids, f.filled, own));  // {t, 1, [base, base + C)}
      }
      step.logit_rows.push_back(static_cast<int32_t>(step.n_tokens() - 1));
    }
    const LogitsView logits = session_.forward(step.request({}));  // (rows in flight, vocabulary)

    std::vector<Flight> staying;
    staying.reserve(flights_.size());
    for (size_t k = 0; k < flights_.size(); ++k) {
      Flight f = flights_[k];
      session_.move_keys(new_keys[k], f.base + f.filled);
      f.filled += new_keys[k].size();
      f.joining = false;
      const std::span<const float> row_logits = logits.row(static_cast<int64_t>(k));
      if (on_logits_) on_logits_(f.row, row_logits);
      if (choose(f, greedy_token(row_logits))) staying.push_back(f);
      else in_flight_ -= f.size;
    }
    flights_ = std::move(staying);
    session_.truncate(regions_end());
  }

  // greedy_decode's rule for the token chosen: EOS ends the row (not kept); otherwise it is
  // kept, and the row ends when stop_after says so or its budget is spent. True: it goes on.
  bool choose(Flight& f, int32_t token) {
    if (token == eos_) return false;
    std::vector<int32_t>& generated = generated_[f.row];
    generated.push_back(token);
    const DecodeRow& row = rows_[f.row];
    if ((row.stop_after && row.stop_after(token)) || static_cast<int64_t>(generated.size()) == row.budget) return false;
    f.next = token;
    return true;
  }

  Session& session_;
  std::span<const DecodeRow> rows_;
  int64_t max_batch_tokens_;
  const DecodeLogitsHook& on_logits_;
  int64_t eos_;
  std::vector<std::vector<int32_t>> generated_;
  std::vector<Flight> flights_;  // rows in flight, in the order they joined
  int64_t in_flight_ = 0;        // keys their regions hold
};

}  // namespace

std::vector<std::vector<int32_t>> greedy_decode_batched(Session& session, std::span<const DecodeRow> rows,
                                                        int64_t max_batch_tokens, const DecodeLogitsHook& on_logits) {
  return BatchedDecoder(session, rows, max_batch_tokens, on_logits).run();
}

}  // namespace sift
