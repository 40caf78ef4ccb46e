#pragma once
// Batched greedy decoding: many rows (prompts) decoded together on one Session, one token per
// row per forward call, rows joining as room frees and leaving as they finish. Each row's
// tokens, and the logits they come from, are the bits greedy_decode (scoring/generate_mode.h)
// gives that row alone, whatever the other rows, the budget or the thread count.
//
// Key space: every row in flight holds a region of the session's cache, [base, base + P + B)
// for its prompt of P tokens and its budget of B answer tokens, written in order as the row
// goes. A call appends its new tokens after the regions (key_offset = N, the regions' end):
//
//   a row joining   its prompt, positions 0..P-1, no context:        {t, P, [0, 0)}
//   a row stepping  its last token at position C (the keys it has):  {t, 1, [base, base + C)}
//
// so a stepping token sees its row's C keys, then itself: the keys greedy_decode's step
// {0, 1, [0, C)} sees, in the same order, at other indices. After the call each row's new
// K/V are moved from [N + t, ...) into its region (Session::move_keys) and the call's keys are
// dropped. Why the bits do not move (docs/engine.md): a token's attention is a fixed-order
// function of the keys it sees, whatever their indices and the other rows of the call
// (kernels/attention.h), and every gemm row is a function of its own input row
// (kernels/gemm.h); positions are the row's own.
//
// Budget: the regions in flight hold at most `max_batch_tokens` keys together (P + B each),
// so a call's new tokens never exceed it either; a row larger than that decodes alone. Rows
// join in order, the first that does not fit waiting for rooms to free. A freed region is
// reused first fit; when no gap holds a joining row, the regions are slid together
// (compaction), so the key space never exceeds the budget (or the one row decoding alone).
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "model/session.h"

namespace sift {

// One row to decode: the prompt, at most `budget` tokens, and when to stop (as greedy_decode:
// at the model's EOS, not included, or after a token for which stop_after is true, included).
struct DecodeRow {
  std::span<const int32_t> prompt;
  int64_t budget = 0;
  std::function<bool(int32_t)> stop_after;
};

// The greedy choice: the highest logit, ties to the lowest id; an Error when a logit is not finite.
int32_t greedy_token(std::span<const float> logits);

// Called with each row's logits (the full vocabulary) before its next token is chosen: the
// prompt's last position, then each step's. For tests comparing the bits with one-row decoding.
using DecodeLogitsHook = std::function<void(size_t row, std::span<const float> logits)>;

// Greedy decoding of `rows` together (argmax over the vocabulary, ties to the lowest id):
// result[r] is row r's generated tokens. The session's cache is used and left empty.
std::vector<std::vector<int32_t>> greedy_decode_batched(Session& session, std::span<const DecodeRow> rows,
                                                        int64_t max_batch_tokens,
                                                        const DecodeLogitsHook& on_logits = {});

}  // namespace sift
