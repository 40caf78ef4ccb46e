#pragma once
// Causal language modelling (`sift train --objective lm`): pretraining a base on plain text,
// or continuing an existing checkpoint's pretraining on a domain's text (--init-model).
//
// Documents are what `sift tokenizer train` reads (tokenizer/bpe_corpus.h): a text file's
// lines, or a JSONL row's "text" (and "query" and items, for `sift synth` rows). Each becomes
//
//   tokens(d) = prefix ++ encode(d) ++ [eos]       prefix: the tokenizer's BOS, if it adds one
//
// and the documents, in file order, are concatenated into one stream S of n tokens. Sequence k
// of T = max_sequence_tokens tokens (k = 0 .. ceil((n - 1) / T) - 1, the last one shorter):
//
//   ids     = S[kT .. kT + T_k - 1]     positions 0 .. T_k - 1, one causal segment
//   targets = S[kT + 1 .. kT + T_k]     a readout at every token        (T_k = min(T, n - 1 - kT))
//
// so every token of S but the first is predicted exactly once, from the tokens before it in its
// sequence: the next-token loss on every token (loss.h, the mean over the batch's tokens).
// Attention crosses document boundaries inside a sequence, as in GPT-style packing; the EOS
// between two documents tells the model that a new one begins.
//
// Planning: an example is one sequence, ExampleSize {T_k, T_k}, so --batch-size counts target
// tokens per step (a step holds whole sequences, at least one).
#include <cstdint>
#include <filesystem>
#include <vector>

#include "tokenizer/tokenizer.h"
#include "train/example_set.h"

namespace sift::train {

struct TokenStream {
  std::vector<int32_t> ids;  // S
  int64_t n_documents = 0;
};

// The end-of-document id of a model with this tokenizer: the tokenizer's "<|endoftext|>" (the
// document separator of GPT-2 and Qwen pretraining) when it has one, else the config's
// eos_token_id (>= 0); Error otherwise, naming both.
int32_t document_separator(const Tokenizer& tokenizer, int64_t config_eos_token_id);

// S of the documents, in order (Error naming file:line for a line that cannot be read).
TokenStream read_token_stream(const std::filesystem::path& corpus, const Tokenizer& tokenizer, int32_t eos,
                              int64_t max_line_bytes);

// The sequences above over `stream` (which must outlive the set), objective "lm". Error when
// the stream holds fewer than two tokens or sequence_tokens < 1.
ExampleSet lm_examples(const std::vector<int32_t>& stream, int64_t sequence_tokens);

}  // namespace sift::train
